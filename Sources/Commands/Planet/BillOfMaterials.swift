import Foundation
import Glibc

/// Copies a planet's bill of materials (style sheets, images) beside its
/// pages, as Venus does: a file is copied when the output folder has none
/// or an older one, through a temporary file renamed into place, so a
/// reader never sees half a file. Each is copied by its content, as a
/// regular file (never as a link a web server would follow), from the real
/// path `VenusConfiguration` found inside its template directory.
enum BillOfMaterials {
    /// Why each file that could not be copied was not.
    static func copy(_ files: [(source: String, target: String)], into folder: String) -> [String] {
        var failures: [String] = []
        let manager = FileManager.default
        for (source, target) in files {
            let destination = URL(fileURLWithPath: folder).appendingPathComponent(target).standardizedFileURL.path
            guard destination.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/") else {
                failures.append("\(target) is outside output_dir")
                continue
            }
            // A link left in output_dir (by an older copy) is replaced whatever its date.
            let isLink =
                (try? manager.attributesOfItem(atPath: destination)[.type] as? FileAttributeType) == .typeSymbolicLink
            if !isLink, let sourceDate = modified(source), let destinationDate = modified(destination),
                destinationDate >= sourceDate
            {
                continue
            }
            let temporary = destination + ".feedmerge-tmp"
            do {
                let kind = try manager.attributesOfItem(atPath: source)[.type] as? FileAttributeType
                guard kind == .typeRegular else {
                    failures.append("\(source) is not copied: not a regular file")
                    continue
                }
                let content = try Data(contentsOf: URL(fileURLWithPath: source))
                try manager.createDirectory(
                    atPath: (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try? manager.removeItem(atPath: temporary)
                try content.write(to: URL(fileURLWithPath: temporary), options: .withoutOverwriting)
                guard rename(temporary, destination) == 0 else {
                    let reason = String(cString: strerror(errno))
                    try? manager.removeItem(atPath: temporary)
                    failures.append("\(destination): \(reason)")
                    continue
                }
            } catch {
                try? manager.removeItem(atPath: temporary)
                failures.append("\(source) cannot be copied to \(destination): \(error.localizedDescription)")
            }
        }
        return failures
    }

    private static func modified(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}
