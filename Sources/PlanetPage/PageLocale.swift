import Foundation
import Glibc

/// The language dates are written in: Planet 2.0's `locale` option, the
/// first of its `:`-separated names that this machine has (`locale -a`;
/// `LOCPATH` is honoured), for month and day names as `strftime` writes
/// them there. Each name is loaded once per process.
public final class PageLocale: @unchecked Sendable {
    let handle: locale_t

    private init(_ handle: locale_t) { self.handle = handle }

    deinit { freelocale(handle) }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var loaded: [String: PageLocale?] = [:]

    /// The first of `names` (`de_DE.UTF-8:de_DE`) this machine has; nil when it has none.
    public static func named(_ names: String) -> PageLocale? {
        for name in names.split(separator: ":").map({ String($0).trimmingCharacters(in: .whitespaces) })
        where !name.isEmpty {
            let found = lock.withLock { () -> PageLocale? in
                if let known = loaded[name] { return known }
                let made = newlocale(LC_TIME_MASK, name, nil).map(PageLocale.init)
                loaded[name] = made
                return made
            }
            if let found { return found }
        }
        return nil
    }
}
