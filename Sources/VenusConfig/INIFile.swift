import Basics

/// An INI file read as Python's `ConfigParser` reads it, which is how
/// Planet Venus reads its `config.ini`:
/// - `[section]` headers; options as `key = value` or `key: value`, the
///   key lowercased; a later file or a repeated option overrides;
/// - an indented line continues the option above it (joined with a newline);
/// - whole-line comments start with `#` or `;` (or the word `rem`); after a
///   value, a `;` preceded by whitespace starts a comment;
/// - `[DEFAULT]` gives every section its options;
/// - a value's `%(name)s` is replaced by that option of the same section
///   (or of `[DEFAULT]`), and then `%%` by `%`.
public struct INIFile: Sendable {
    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public var file: String
        public var line: Int
        public var message: String
        public var description: String { "\(file):\(line): \(message)" }
    }

    /// Section names in the order they first appear (`DEFAULT` is not one).
    public private(set) var sections: [String] = []
    /// Each section's own options, in the order they first appear.
    private var options: [String: [(key: String, value: String)]] = [:]
    /// `[DEFAULT]`'s options.
    public private(set) var defaults: [(key: String, value: String)] = []

    public init() {}

    /// Reads `text` (named `file` in errors) over what is read already.
    public mutating func read(_ text: String, file: String) throws(ParseError) {
        var section: String?
        var lastKey: String?
        var number = 0
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw[...]
            let stripped = line.trimmingWhitespace
            if stripped.isEmpty || stripped.first == "#" || stripped.first == ";" {
                continue
            }
            if let first = line.first, first == "r" || first == "R",
                stripped.split(separator: " ", maxSplits: 1).first?.lowercased() == "rem"
            {
                continue
            }
            if let first = line.first, first == " " || first == "\t", let section, let lastKey {
                // A continuation line.
                let value = value(of: lastKey, in: section) ?? ""
                set(lastKey, to: value.isEmpty ? stripped : value + "\n" + stripped, in: section)
                continue
            }
            if stripped.first == "[", let close = stripped.firstIndex(of: "]"),
                stripped.index(after: stripped.startIndex) < close
            {
                let name = String(stripped[stripped.index(after: stripped.startIndex)..<close])
                section = name
                lastKey = nil
                if name != "DEFAULT" && options[name] == nil {
                    sections.append(name)
                    options[name] = []
                }
                continue
            }
            guard let section else {
                throw ParseError(file: file, line: number, message: "an option before any [section]")
            }
            guard let separator = line.firstIndex(where: { $0 == "=" || $0 == ":" }),
                !line[..<separator].trimmingWhitespace.isEmpty
            else {
                throw ParseError(
                    file: file, line: number, message: "not an option (key = value), a [section] or a comment")
            }
            let key = line[..<separator].trimmingWhitespace.lowercased()
            var value = line[line.index(after: separator)...]
            // An inline comment: `;` after whitespace.
            var previous: Character = " "
            for index in value.indices {
                if value[index] == ";" && previous.isWhitespace && index != value.startIndex {
                    value = value[..<index]
                    break
                }
                previous = value[index]
            }
            var text = value.trimmingWhitespace
            if text == "\"\"" { text = "" }
            set(key, to: text, in: section)
            lastKey = key
        }
    }

    private func value(of key: String, in section: String) -> String? {
        let list = section == "DEFAULT" ? defaults : options[section] ?? []
        return list.last { $0.key == key }?.value
    }

    private mutating func set(_ key: String, to value: String, in section: String) {
        if section == "DEFAULT" {
            if let index = defaults.firstIndex(where: { $0.key == key }) {
                defaults[index].value = value
            } else {
                defaults.append((key, value))
            }
            return
        }
        if let index = options[section]?.firstIndex(where: { $0.key == key }) {
            options[section]![index].value = value
        } else {
            options[section, default: []].append((key, value))
        }
    }

    /// Sets an option, as a later file would.
    public mutating func set(_ key: String, _ value: String, in section: String) {
        if section != "DEFAULT" && options[section] == nil {
            sections.append(section)
            options[section] = []
        }
        set(key.lowercased(), to: value, in: section)
    }

    public func hasSection(_ name: String) -> Bool { options[name] != nil }

    /// The section's options, `[DEFAULT]`'s included, in order (its own first).
    public func keys(in section: String) -> [String] {
        var seen: Set<String> = []
        return ((options[section] ?? []) + defaults).compactMap { seen.insert($0.key).inserted ? $0.key : nil }
    }

    /// The section's own options (without `[DEFAULT]`'s).
    public func ownKeys(in section: String) -> [String] { (options[section] ?? []).map(\.key) }

    /// An option's raw value: the section's own, else `[DEFAULT]`'s.
    public func raw(_ key: String, in section: String) -> String? {
        let key = key.lowercased()
        return value(of: key, in: section) ?? value(of: key, in: "DEFAULT")
    }

    /// An option's value, `%(name)s` interpolated as `ConfigParser.get` does.
    /// - Throws: the name of an option a `%(name)s` refers to that is not set,
    ///   or a reference loop.
    public func value(_ key: String, in section: String) throws(ParseError) -> String? {
        guard var value = raw(key, in: section) else { return nil }
        var depth = 10
        while value.contains("%(") {
            depth -= 1
            guard depth > 0 else {
                throw ParseError(
                    file: "[\(section)]", line: 0, message: "\(key): %(…)s references nest more than 10 deep")
            }
            value = try interpolateOnce(value, key: key, section: section)
        }
        return value
    }

    private func interpolateOnce(_ value: String, key: String, section: String) throws(ParseError) -> String {
        var result = ""
        var rest = value[...]
        while let percent = rest.firstIndex(of: "%") {
            result += rest[..<percent]
            let after = rest[rest.index(after: percent)...]
            if after.first == "%" {
                result += "%"
                rest = after.dropFirst()
            } else if after.first == "(", let close = after.firstIndex(of: ")"),
                after[after.index(after: close)...].first == "s"
            {
                let name = after[after.index(after: after.startIndex)..<close].lowercased()
                guard let replacement = raw(name, in: section) else {
                    throw ParseError(
                        file: "[\(section)]", line: 0, message: "\(key) refers to %(\(name))s, which is not set")
                }
                result += replacement
                rest = after[after.index(close, offsetBy: 2)...]
            } else {
                result += "%"
                rest = after
            }
        }
        return result + rest
    }
}

extension INIFile {
    /// Moves a section's options under another name (`[planet]` read as `[Planet]`).
    mutating func renameSection(_ name: String, to newName: String) {
        guard let moved = options[name] else { return }
        options[name] = nil
        sections.removeAll { $0 == name }
        for (key, value) in moved { set(key, value, in: newName) }
    }
}
