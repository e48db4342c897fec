import Foundation

/// The connection URI of a store on a server, read the way libpq reads `postgresql://` URIs,
/// and the one place that takes its password out of what errors and logs show.
///
/// ```text
/// scheme://[user[:password]@][host[:port][,host[:port]]…][/database][?name=value&…]
/// postgresql://app:s3cret@db1.example.com:5432,db2.example.com:5432/inventory?schema=app
/// ```
///
/// The scheme is compared without regard to case (`PostgreSQL://` is `postgresql://`). Several
/// hosts, each with its port, are separated by commas, as libpq allows; Foundation's `URL`
/// refuses that form, so ``url`` carries such a URI in a form it accepts (the hosts, ports, user
/// and password as query parameters, which libpq reads the same way). The password may hold
/// `@`, `/`, `:` and `#` as written: the user part ends at the last `@` before the query.
/// Everything else is percent-decoded as libpq does it; a `%00` or a broken `%` escape is an
/// error that names the part, never its value.
///
/// Errors, logs and `storectl` show ``redactedDescription``, or pass any text that may hold
/// the URI or its password through ``redacting(_:)``; ``redacted(_:)`` describes
/// text that is not a URI at all without showing it.
public struct ConnectionURI: Sendable {
    /// The scheme, lower-cased (`postgresql`).
    public let scheme: String
    /// The user of the user part, percent-decoded; nil when there is none.
    public let user: String?
    /// The password of the user part, percent-decoded; nil when there is none.
    public let password: String?
    /// The hosts of the host part, in order, percent-decoded (an IPv6 address without its
    /// brackets); empty when the URI names none.
    public let hosts: [String]
    /// The port of each host ("" where a host has none); empty when the URI names no host.
    public let ports: [String]
    /// The database (the path without its `/`), percent-decoded; nil when there is none.
    public let database: String?
    /// The query parameters in order, percent-decoded.
    public let parameters: [(name: String, value: String)]
    /// The text the URI was read from.
    public let text: String
    /// The password and secret parameter values as the text spells them.
    private let writtenSecrets: [String]

    /// The names of parameters whose values are secrets: hidden like the password.
    public static let secretParameters: Set<String> = ["password", "sslpassword"]

    /// Reads `text`.
    ///
    /// - Throws: 134080 when `text` is not `scheme://…`, or a part holds `%00` or a broken `%`
    ///   escape; the message names the part, never the text.
    public init(_ text: String) throws {
        guard let (scheme, rest) = Self.splitScheme(text) else {
            throw StoreError(
                .persistentStoreOpen, "The store's address is not a connection URI (scheme://user@host/database), and is not shown as it may hold a password")
        }
        func decode(_ part: Substring, _ name: String) throws -> String {
            guard let decoded = Self.percentDecoded(part) else {
                throw StoreError(
                    .persistentStoreOpen,
                    "The \(name) in the connection URI \(scheme)://… holds %00 or a broken % escape (percent-encode it as %XX, with no zero byte)")
            }
            return decoded
        }
        // The user part ends at the last `@` before the query; a password holding `?` (which
        // should be percent-encoded) is still taken as one when no `=` comes before its `@`.
        let beforeQuery = rest.firstIndex(of: "?") ?? rest.endIndex
        var at = rest[..<beforeQuery].lastIndex(of: "@")
        if at == nil, let last = rest.lastIndex(of: "@"), !rest[..<last].contains("=") { at = last }
        var user: String?
        var password: String?
        var written: [String] = []
        var remainder = rest[...]
        if let at {
            let userPart = rest[..<at]
            if let colon = userPart.firstIndex(of: ":") {
                let name = userPart[..<colon]
                user = name.isEmpty ? nil : try decode(name, "user name")
                let secret = userPart[userPart.index(after: colon)...]
                written.append(String(secret))
                password = secret.isEmpty ? nil : try decode(secret, "password")
            } else if !userPart.isEmpty {
                user = try decode(userPart, "user name")
            }
            remainder = rest[rest.index(after: at)...]
        }
        // Hosts: host[:port], separated by commas, up to the path or the query.
        let hostEnd = remainder.firstIndex { $0 == "/" || $0 == "?" } ?? remainder.endIndex
        var hosts: [String] = []
        var ports: [String] = []
        let hostPart = remainder[..<hostEnd]
        if !hostPart.isEmpty {
            for item in hostPart.split(separator: ",", omittingEmptySubsequences: false) {
                var host = item[...]
                var port: Substring = ""
                if host.first == "[", let close = host.firstIndex(of: "]") {
                    port = host[host.index(after: close)...].drop { $0 == ":" }
                    host = host[host.index(after: host.startIndex)..<close]
                } else if let colon = host.firstIndex(of: ":") {
                    port = host[host.index(after: colon)...]
                    host = host[..<colon]
                }
                hosts.append(try decode(host, "host"))
                ports.append(try decode(port, "port"))
            }
        }
        remainder = remainder[hostEnd...]
        var database: String?
        if remainder.first == "/" {
            let pathEnd = remainder.firstIndex(of: "?") ?? remainder.endIndex
            let path = remainder[remainder.index(after: remainder.startIndex)..<pathEnd]
            database = path.isEmpty ? nil : try decode(path, "database name")
            remainder = remainder[pathEnd...]
        }
        var parameters: [(name: String, value: String)] = []
        if remainder.first == "?" {
            for (position, item) in remainder.dropFirst().split(separator: "&").enumerated() {
                guard let equals = item.firstIndex(of: "=") else {
                    throw StoreError(
                        .persistentStoreOpen, "Query parameter \(position + 1) of the connection URI \(scheme)://… has no \"=\" and value")
                }
                let name = try decode(item[..<equals], "name of query parameter \(position + 1)")
                if Self.secretParameters.contains(name) { written.append(String(item[item.index(after: equals)...])) }
                let value = try decode(item[item.index(after: equals)...], "value of the query parameter \(name)")
                parameters.append((name, value))
            }
        }
        self.init(
            scheme: scheme, user: user, password: password, hosts: hosts, ports: ports, database: database,
            parameters: parameters, text: text, writtenSecrets: written)
    }

    /// Whether `text` starts like a connection URI of one of `schemes` (`scheme://`, the scheme
    /// in any case), whether or not the rest is well formed.
    public static func hasScheme(_ text: String, in schemes: Set<String>) -> Bool {
        guard let (scheme, _) = splitScheme(text) else { return false }
        return schemes.contains(scheme)
    }

    /// Whether `text` starts with a scheme and `://`.
    public static func looksLikeURI(_ text: String) -> Bool { splitScheme(text) != nil }

    /// The value of the query parameter `name` (the last one given), nil when there is none.
    public func parameter(_ name: String) -> String? { parameters.last { $0.name == name }?.value }

    /// The URI with the query parameter `name` set to `value` (or removed, for nil), as a URI
    /// Foundation's `URL` accepts.
    public func settingParameter(_ name: String, to value: String?) -> ConnectionURI {
        var kept = parameters.filter { $0.name != name }
        if let value { kept.append((name, value)) }
        return ConnectionURI(
            scheme: scheme, user: user, password: password, hosts: hosts, ports: ports, database: database, parameters: kept)
    }

    /// A URL for the URI: the text as it is when Foundation's `URL` accepts it, otherwise the
    /// same connection with its hosts, ports, user and password as query parameters
    /// (`scheme:///database?host=h1,h2&port=5432,5432&user=…`), which `URL` accepts and libpq
    /// reads the same way.
    public var url: URL {
        if let url = URL(string: text), url.scheme != nil { return url }
        return Self.carrierURL(self)
    }

    /// What errors and logs show: the URI with its password and secret parameters as `***`.
    public var redactedDescription: String {
        var result = "\(scheme)://"
        if user != nil || password != nil {
            result += (user ?? "") + (password == nil ? "" : ":***") + "@"
        }
        result += zip(hosts, ports).map { host, port in
            (host.contains(":") ? "[\(host)]" : host) + (port.isEmpty ? "" : ":\(port)")
        }.joined(separator: ",")
        if let database { result += "/\(database)" }
        if !parameters.isEmpty {
            if database == nil { result += "/" }
            result += "?" + parameters.map { "\($0.name)=\(Self.secretParameters.contains($0.name) ? "***" : $0.value)" }.joined(separator: "&")
        }
        return redacting(result, describing: false)
    }

    /// `message` with every secret of this URI taken out: the URI's text becomes
    /// ``redactedDescription``, and the password and secret parameters, as written or decoded,
    /// become `***` wherever they appear (libpq repeats values in its errors).
    public func redacting(_ message: String) -> String { redacting(message, describing: true) }

    private func redacting(_ message: String, describing: Bool) -> String {
        var result = message
        if describing, !text.isEmpty { result = result.replacingOccurrences(of: text, with: redactedDescription) }
        return Self.redacting(result, secrets: secrets)
    }

    /// The password and secret parameter values, decoded, as written in the text, and
    /// percent-encoded, longest first.
    public var secrets: [String] {
        var values = [password].compactMap { $0 } + parameters.filter { Self.secretParameters.contains($0.name) }.map(\.value)
        values += values.compactMap { $0.addingPercentEncoding(withAllowedCharacters: Self.unreserved) }
        values += writtenSecrets
        return Array(Set(values.filter { !$0.isEmpty })).sorted { $0.count > $1.count }
    }

    /// `message` with every occurrence of each of `secrets` (longest first) replaced by `***`.
    public static func redacting(_ message: String, secrets: [String]) -> String {
        var result = message
        for secret in secrets.sorted(by: { $0.count > $1.count }) where !secret.isEmpty {
            result = result.replacingOccurrences(of: secret, with: "***")
        }
        return result
    }

    /// How messages show `text` that may be a connection URI: its ``redactedDescription`` when
    /// it reads as one, otherwise only its scheme (`postgresql://…`), or a phrase for text that
    /// is not a URI at all, never the text itself.
    public static func redacted(_ text: String) -> String {
        if let uri = try? ConnectionURI(text) { return uri.redactedDescription }
        if let (scheme, _) = splitScheme(text) { return "\(scheme)://…" }
        return "(a value that is not a connection URI)"
    }

    /// `text` with the password of every URI-like run in it (`scheme:/user:password@…`, even
    /// inside a file path or with one slash) replaced by `***`: the last guard of what a tool
    /// prints about an argument it could not read as a connection URI.
    public static func redactingUserInfo(in text: String) -> String {
        text.replacing(#/(?<head>[A-Za-z][A-Za-z0-9+.\-]*:/+[^/\s@:]*):\S*@/#) { match in "\(match.output.head):***@" }
    }

    // MARK: Parts

    private init(
        scheme: String, user: String?, password: String?, hosts: [String], ports: [String], database: String?,
        parameters: [(name: String, value: String)]
    ) {
        self.init(
            scheme: scheme, user: user, password: password, hosts: hosts, ports: ports, database: database,
            parameters: parameters,
            text: Self.carrierURL(
                scheme: scheme, user: user, password: password, hosts: hosts, ports: ports, database: database,
                parameters: parameters
            ).absoluteString,
            writtenSecrets: [])
    }

    private init(
        scheme: String, user: String?, password: String?, hosts: [String], ports: [String], database: String?,
        parameters: [(name: String, value: String)], text: String, writtenSecrets: [String]
    ) {
        self.scheme = scheme
        self.user = user
        self.password = password
        self.hosts = hosts
        self.ports = ports
        self.database = database
        self.parameters = parameters
        self.text = text
        self.writtenSecrets = writtenSecrets
    }

    /// Letters, digits and `-._~`: what stays unencoded in a carrier URL.
    private static let unreserved: CharacterSet = {
        var set = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        set.insert(charactersIn: "-._~")
        return set
    }()

    private static func carrierURL(_ uri: ConnectionURI) -> URL {
        carrierURL(
            scheme: uri.scheme, user: uri.user, password: uri.password, hosts: uri.hosts, ports: uri.ports, database: uri.database,
            parameters: uri.parameters)
    }

    /// `scheme:///database?host=…&port=…&user=…&password=…&…`, every value percent-encoded.
    private static func carrierURL(
        scheme: String, user: String?, password: String?, hosts: [String], ports: [String], database: String?,
        parameters: [(name: String, value: String)]
    ) -> URL {
        var items: [(String, String)] = []
        let given = Set(parameters.map(\.name))
        if !hosts.isEmpty, !given.contains("host") { items.append(("host", hosts.joined(separator: ","))) }
        if ports.contains(where: { !$0.isEmpty }), !given.contains("port") { items.append(("port", ports.joined(separator: ","))) }
        if let user, !given.contains("user") { items.append(("user", user)) }
        if let password, !given.contains("password") { items.append(("password", password)) }
        items += parameters.map { ($0.name, $0.value) }
        func encode(_ value: String) -> String { value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "" }
        var text = "\(scheme):///\(database.map(encode) ?? "")"
        if !items.isEmpty { text += "?" + items.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&") }
        // Every character is unreserved or percent-encoded, so `URL` accepts it.
        return URL(string: text) ?? URL(fileURLWithPath: "/")
    }

    /// The lower-cased scheme and what follows `://`, when `text` starts with a scheme.
    private static func splitScheme(_ text: String) -> (String, Substring)? {
        guard let range = text.range(of: "://") else { return nil }
        let scheme = text[..<range.lowerBound]
        guard let first = scheme.unicodeScalars.first, first.isASCII, CharacterSet.letters.contains(first),
            scheme.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "+-.".unicodeScalars.contains($0)) })
        else { return nil }
        return (scheme.lowercased(), text[range.upperBound...])
    }

    /// `text` with `%XX` escapes decoded as UTF-8 (`+` stays `+`, as in libpq); nil for a
    /// broken escape, `%00`, or bytes that are not UTF-8.
    private static func percentDecoded(_ text: Substring) -> String? {
        text.contains("%") ? PercentEncoding.decode(text, allowingZero: false) : String(text)
    }
}
