import Basics

/// An answer that is a bot-protection challenge (Cloudflare's managed
/// challenge, a JavaScript or CAPTCHA interstitial), not the feed: the
/// feed is blocked to automated readers, and asking again soon, or as
/// someone else, is exactly what such protection punishes. Told by
/// Cloudflare's `cf-mitigated: challenge` header on any status, or by an
/// HTML page carrying a known challenge's markers on a 403, 429 or 503 (or
/// on a 2xx, where a feed was expected: `isChallengePage`).
public enum BotChallenge {
    /// What shows the answer is a challenge; nil when nothing does.
    public static func evidence(status: Int, headers: ResponseHeaders, body: [UInt8]) -> String? {
        if let mitigated = headers.cfMitigated, mitigated.trimming(" \t").lowercased() == "challenge" {
            return "HTTP \(status), cf-mitigated: challenge"
        }
        guard [403, 429, 503].contains(status), let marker = challengeMarker(in: body) else { return nil }
        return "HTTP \(status), a challenge page (\(marker))"
    }

    /// The marker of a known challenge in an HTML page, if any (its first 64 KiB are read).
    public static func challengeMarker(in body: [UInt8]) -> String? {
        let head = String(decoding: body.prefix(64 << 10), as: UTF8.self).lowercased()
        guard head.contains("<html") || head.contains("<!doctype html") else { return nil }
        return markers.first { head.contains($0) }
    }

    /// Markers of the common challenge pages, lowercased: Cloudflare's
    /// (managed and JavaScript challenges, "Attention Required"), and those of
    /// Sucuri, DDoS-Guard, AWS WAF, Imperva, Akamai and hCaptcha/reCAPTCHA walls.
    static let markers = [
        "/cdn-cgi/challenge-platform/", "cf-chl-", "<title>just a moment...</title>",
        "attention required! | cloudflare", "sucuri website firewall", "ddos-guard", "awswaf", "captcha-delivery",
        "_incapsula_resource", "akamai bot manager", "h-captcha", "g-recaptcha", "checking your browser",
    ]
}
