import Foundation

/// A small log-log line chart of cost against data size, as SVG text.
public enum Chart {
    public static func svg(title: String, sizes: [Int], series: [(label: String, color: String, seconds: [Double])]) -> String {
        let width = 720.0, height = 420.0, left = 70.0, right = 170.0, top = 40.0, bottom = 50.0
        let values = series.flatMap(\.seconds).filter { $0.isFinite && $0 > 0 }
        guard let smallest = values.min(), let largest = values.max(), let firstSize = sizes.first, let lastSize = sizes.last,
            lastSize > firstSize
        else { return "<svg xmlns=\"http://www.w3.org/2000/svg\"/>" }
        let yLow = floor(log10(smallest)), yHigh = ceil(log10(largest))
        let xLow = log10(Double(firstSize)), xHigh = log10(Double(lastSize))
        func x(_ size: Int) -> Double { left + (log10(Double(size)) - xLow) / (xHigh - xLow) * (width - left - right) }
        func y(_ seconds: Double) -> Double {
            top + (yHigh - log10(seconds)) / max(yHigh - yLow, 1) * (height - top - bottom)
        }
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" font-family=\"sans-serif\" font-size=\"12\">\n"
        out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        out += "<text x=\"\(left)\" y=\"22\" font-size=\"14\">\(title)</text>\n"
        var exponent = yLow
        while exponent <= yHigh {
            let seconds = pow(10, exponent)
            let label = seconds < 1 ? "\(String(format: "%g", seconds * 1000)) ms" : "\(String(format: "%g", seconds)) s"
            out += "<line x1=\"\(left)\" x2=\"\(width - right)\" y1=\"\(y(seconds))\" y2=\"\(y(seconds))\" stroke=\"#ddd\"/>\n"
            out += "<text x=\"\(left - 8)\" y=\"\(y(seconds) + 4)\" text-anchor=\"end\">\(label)</text>\n"
            exponent += 1
        }
        for size in sizes {
            out += "<line x1=\"\(x(size))\" x2=\"\(x(size))\" y1=\"\(top)\" y2=\"\(height - bottom)\" stroke=\"#eee\"/>\n"
            out += "<text x=\"\(x(size))\" y=\"\(height - bottom + 18)\" text-anchor=\"middle\">\(size)</text>\n"
        }
        out += "<text x=\"\((left + width - right) / 2)\" y=\"\(height - 12)\" text-anchor=\"middle\">N (persons)</text>\n"
        for (position, line) in series.enumerated() {
            let points = zip(sizes, line.seconds).filter { $0.1.isFinite && $0.1 > 0 }
                .map { "\(x($0.0)),\(y($0.1))" }.joined(separator: " ")
            out += "<polyline fill=\"none\" stroke=\"\(line.color)\" stroke-width=\"2\" points=\"\(points)\"/>\n"
            let legendY = top + 10 + Double(position) * 18
            out += "<line x1=\"\(width - right + 12)\" x2=\"\(width - right + 32)\" y1=\"\(legendY)\" y2=\"\(legendY)\" stroke=\"\(line.color)\" stroke-width=\"2\"/>\n"
            out += "<text x=\"\(width - right + 38)\" y=\"\(legendY + 4)\">\(line.label)</text>\n"
        }
        return out + "</svg>\n"
    }
}
