internal import CGumbo
import Glibc
import HTMLSanitizer

// Sanitizer benchmark (run by scripts/bench-sanitize):
//   sanitize-bench [--parse-only | --xhtml] VALUES_FILE
// VALUES_FILE holds HTML values separated by NUL bytes. Each value is
// sanitized (or, with --parse-only, only parsed by gumbo as a fragment: the
// floor). Prints "values bytes cpu_seconds output_bytes" on one line.
//   sanitize-bench --stdin [--xhtml] [--base URL]   sanitizes standard input (for trying values)
//   sanitize-bench --check VALUES_FILE                 sanitizing each output again changes nothing

var arguments = Array(CommandLine.arguments.dropFirst())
@MainActor func flag(_ name: String) -> Bool {
    guard let index = arguments.firstIndex(of: name) else { return false }
    arguments.remove(at: index)
    return true
}
let parseOnly = flag("--parse-only")
let xhtml = flag("--xhtml")
let fromStandardInput = flag("--stdin")
let checkIdempotence = flag("--check")
var base: String?
if let index = arguments.firstIndex(of: "--base"), index + 1 < arguments.count {
    base = arguments[index + 1]
    arguments.removeSubrange(index...(index + 1))
}

func readAll(_ file: UnsafeMutablePointer<FILE>) -> [UInt8] {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count == 0 { break }
        bytes.append(contentsOf: chunk[0..<count])
    }
    return bytes
}

if fromStandardInput {
    let input = String(decoding: readAll(fdopen(0, "rb")), as: UTF8.self)
    print(xhtml ? HTMLSanitizer.sanitizeToXHTML(input, base: base) : HTMLSanitizer.sanitize(input, base: base))
    exit(0)
}

guard let path = arguments.first, let file = fopen(path, "rb") else {
    print("usage: sanitize-bench [--parse-only | --xhtml] VALUES_FILE")
    exit(2)
}
let data = readAll(file)
fclose(file)
let values = data.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

if checkIdempotence {
    // Not timed: sanitizing each output again must give it back unchanged.
    var differing = 0
    for value in values {
        let once = xhtml ? HTMLSanitizer.sanitizeToXHTML(value) : HTMLSanitizer.sanitize(value)
        let twice = xhtml ? HTMLSanitizer.sanitizeToXHTML(once) : HTMLSanitizer.sanitize(once)
        if once != twice {
            differing += 1
            if differing <= 3 { print("differs:", value.prefix(300).debugDescription, "->", once.prefix(300).debugDescription) }
        }
    }
    print("\(values.count) values, \(differing) not idempotent")
    exit(differing == 0 ? 0 : 1)
}

let start = cpuSeconds()
var outputBytes = 0
for var value in values {
    if parseOnly {
        value.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                if let output = CGumbo_parseFragment(chars.baseAddress, chars.count) {
                    outputBytes += Int(output.pointee.root.pointee.v.element.children.length)
                    CGumbo_destroy(output)
                }
            }
        }
    } else {
        outputBytes += (xhtml ? HTMLSanitizer.sanitizeToXHTML(value) : HTMLSanitizer.sanitize(value)).utf8.count
    }
}
let seconds = cpuSeconds() - start
print("\(values.count) \(data.count) \(seconds) \(outputBytes)")
