/// The key directory's response headers as the operator's web server takes
/// them (`feedmerge key directory --headers-format`).
enum DirectoryHeaders {
    enum Format: String, CaseIterable, Sendable {
        /// `Name: value` lines.
        case plain
        /// Directives to `include` in nginx's `location =
        /// /.well-known/http-message-signatures-directory` block.
        case nginx
        /// An `.htaccess` for the `.well-known` folder (mod_headers and mod_mime).
        case apache
    }

    /// Every value is printable ASCII without `'` or `%` (a media type, sf-strings of base64url
    /// and fixed words, sf-binary), so nginx's single quotes and Apache's escaped double quotes
    /// hold it as it is.
    static func render(_ fields: [(name: String, value: String)], as format: Format) -> String {
        switch format {
        case .plain:
            return fields.map { "\($0.name): \($0.value)\n" }.joined()
        case .nginx:
            return fields.map { field in
                field.name == "Content-Type"
                    ? "default_type \(field.value);\n" : "add_header \(field.name) '\(field.value)' always;\n"
            }.joined()
        case .apache:
            let lines = fields.map { field in
                field.name == "Content-Type"
                    ? "    ForceType \(field.value)\n"
                    : "    Header always set \(field.name) \""
                        + field.value.replacingOccurrences(of: "\"", with: "\\\"") + "\"\n"
            }
            return "<Files \"http-message-signatures-directory\">\n" + lines.joined() + "</Files>\n"
        }
    }
}
