/// Connection URIs that are malformed, or unusual, or cannot connect (port 1 of the loopback
/// address), each holding a password that starts with ``secret``: no error, message or output
/// made from one may show it.
public enum MalformedConnectionURIs {
    /// The password every URI of the corpus holds, in some spelling; it must never show.
    public static let secret = "s3cr3t"

    /// Malformed or unusual URIs, each with a password that starts with ``secret``.
    public static let corpus = [
        "PostgreSQL://someone:s3cr3t-PW@127.0.0.1:1/db?connect_timeout=2",
        "POSTGRES://someone:s3cr3t-PW@127.0.0.1:1/db?connect_timeout=2",
        "postgresql://someone:s3cr3t-PW@127.0.0.1:54x2/db",
        "postgresql://someone:s3cr3t-PW@127.0.0.1:1,127.0.0.1:2/db?connect_timeout=2",
        "postgresql://someone:s3cr3t#PW@127.0.0.1:1/db?connect_timeout=2",
        "postgresql://someone:s3cr3t/PW@127.0.0.1:1/db?connect_timeout=2",
        "postgresql://someone:s3cr3t@PW@127.0.0.1:1/db?connect_timeout=2",
        "postgresql://someone:s3cr3t?PW@127.0.0.1:1/db?connect_timeout=2",
        "postgresql://someone:s3cr3t:PW@127.0.0.1:1/db?connect_timeout=2",
        "postgresql://someone:s3cr3t%00PW@127.0.0.1:1/db",
        "postgresql://someone:s3cr3t%zzPW@127.0.0.1:1/db",
        "postgresql://someone:s3cr3t%4@127.0.0.1:1/db",
        "postgresql://someone:s3cr3t%FF%FE@127.0.0.1:1/db",
        "postgresql://someone:s3cr3t-PW@[::1/db",
        "postgresql://someone:s3cr3t-PW@[]:1/db",
        "postgresql://someone:s3cr3t-PW@127.0.0.1:1/db?password=s3cr3t%00x",
        "postgresql://someone@127.0.0.1:1/db?password=s3cr3t-PW&connect_timeout=2",
        "postgresql://someone@127.0.0.1:1/db?sslpassword=s3cr3t-PW&connect_timeout=2",
        "postgresql:///db?host=127.0.0.1&port=1&password=s3cr3t-PW&connect_timeout=2",
        "postgresql://someone:s3cr3t-PW@127.0.0.1:1/db?sslmode=bogus",
        "postgresql://someone:s3cr3t-PW@127.0.0.1:1/db?nonsense",
        "postgresql://someone:s3cr3t-PW@127.0.0.1:1/db?bogus_option=1",
        "postgresql://someone:s3cr3t-PW@127.0.0.1:1/db?port=99999999999",
        "postgresql://someone:s3cr3t-PW@127.0.0.1:1/db?connect_timeout=abc",
        "postgresql://someone:s3cr3t-PW@127.0.0.1:1/db?target_session_attrs=bogus",
        "postgresql://someone:s3cr3t-PW@127.0.0.1:1/db?host=%00",
        "postgresql://someone:s3cr3t-PW@127.0.0.1:1/db?schema=information_schema",
        "postgresql://someone:s3cr3t-PW@127.0.0.1:1/db?schema=pg_catalog",
        "postgresql://someone:s3cr3t-PW@127.0.0.1:1/db?user=s3cr3t-PW",
        "postgresql://someone:s3cr3t-'PW\\@127.0.0.1:1/db?connect_timeout=2",
        "postgresql://:s3cr3t-PW@127.0.0.1:1/db?connect_timeout=2",
        "postgresql://someone:s3cr3t-PW@/db?host=127.0.0.1&port=1&connect_timeout=2",
        "postgresql://someone:s3cr3t-PW@127.0.0.1:1/db#fragment",
        "postgresql:/someone:s3cr3t-PW@127.0.0.1:1/db",
        "mysql://someone:s3cr3t-PW@127.0.0.1:1/db",
        " postgresql://someone:s3cr3t-PW@127.0.0.1:1/db ",
    ]
}
