import FeedModel
import XMLTree
import TextOutput

enum XMLText {
    /// Escaped text as a String (for HTML built from plain text).
    static func escape(_ text: String) -> String {
        var buffer = TextBuffer(capacity: text.utf8.count + 16)
        buffer.appendXMLEscaped(text)
        return buffer.text
    }
}

/// HTML reduced to plain text (for RSS titles, which are plain text):
/// tags removed, the common character references decoded.
public enum PlainText {
    public static func from(html: String) -> String {
        var out = ""
        var inTag = false
        for character in html {
            if character == "<" {
                inTag = true
            } else if character == ">" && inTag {
                inTag = false
            } else if !inTag {
                out.append(character)
            }
        }
        return decodeReferences(out)
    }

    static func decodeReferences(_ text: String) -> String {
        CharacterReferences.decode(text, html: true)
    }
}
