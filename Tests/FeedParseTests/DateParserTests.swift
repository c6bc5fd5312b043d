import FeedModel
import Testing

@testable import FeedParse

@Suite struct DateParserTests {
    /// (input, expected UTC instant or nil for unparseable)
    static let table: [(String, String?)] = [
        // RFC 822 / 1123 / 2822 and deviations
        ("Thu, 01 Jan 2004 19:48:21 GMT", "2004-01-01T19:48:21Z"),
        ("Thu, 01 Jan 04 19:48:21 GMT", "2004-01-01T19:48:21Z"),
        ("01 Jan 2004 19:48:21 +0100", "2004-01-01T18:48:21Z"),
        ("Thu, 1 Jan 2004 19:48 -05:00", "2004-01-02T00:48:00Z"),
        ("thu, 01 JAN 2004 19:48:21 est", "2004-01-02T00:48:21Z"),
        ("Thu,  01   Jan 2004   19:48:21   PDT", "2004-01-02T02:48:21Z"),
        ("Fri,24 Nov 2023 18:28:36 -0000", "2023-11-24T18:28:36Z"),
        ("Mon, 26 January 2004 16:31:00 ET", "2004-01-26T21:31:00Z"),
        ("Wed, 19 Feb 2012 22:40:00 GMT-01:01", "2012-02-19T23:41:00Z"),
        ("Thu, 01 Jan 2004 12:00:00 Z", "2004-01-01T12:00:00Z"),
        ("Thu, 01 Jan 2004 12:00:00 A", "2004-01-01T13:00:00Z"),
        ("Thu, 01 Jan 2004", "2004-01-01T00:00:00Z"),
        ("Sat, Dec 16 2023 02:02:33 PM", "2023-12-16T14:02:33Z"),
        // RFC 2822's trailing comment
        ("Tue, 24 Apr 2018 10:00:00 -0000 (UTC)", "2018-04-24T10:00:00Z"),
        ("Tue, 24 Apr 2018 10:00:00 +0200 (CEST)", "2018-04-24T08:00:00Z"),
        ("(just a comment)", nil),
        // asctime and slashed forms
        ("Sun Jul 15 01:16:00 +0000 2012", "2012-07-15T01:16:00Z"),
        ("Fri, 2006/09/15 08:19:53 EDT", "2006-09-15T12:19:53Z"),
        // ISO 8601 / RFC 3339 / W3C-DTF
        ("2003-12-31T10:14:55Z", "2003-12-31T10:14:55Z"),
        ("2003-12-31T10:14:55.1234-08:00", "2003-12-31T18:14:55Z"),
        ("2003-12-31t10:14:55+0800", "2003-12-31T02:14:55Z"),
        ("2004-07-08 23:56:58", "2004-07-08T23:56:58Z"),
        ("2003-12-31", "2003-12-31T00:00:00Z"),
        ("2003-12", "2003-12-01T00:00:00Z"),
        ("2003", "2003-01-01T00:00:00Z"),
        ("20031231", "2003-12-31T00:00:00Z"),
        ("2003-335", "2003-12-01T00:00:00Z"),
        ("-03-12", "2003-12-01T00:00:00Z"),
        // feedparser's two-digit-year forms: YY-MM-DD, YY-OOO
        ("03-12-31", "2003-12-31T00:00:00Z"),
        ("03-335", "2003-12-01T00:00:00Z"),
        ("03-12-31T10:14:55Z", "2003-12-31T10:14:55Z"),
        // a zone of the IANA database's Etc area (POSIX signs: GMT-2 is two hours east)
        ("Wed, 19 Aug 2009 18:28:00 Etc/GMT", "2009-08-19T18:28:00Z"),
        ("Wed, 19 Aug 2009 18:28:00 etc/utc", "2009-08-19T18:28:00Z"),
        ("Wed, 19 Aug 2009 18:28:00 Etc/GMT-2", "2009-08-19T16:28:00Z"),
        ("Wed, 19 Aug 2009 18:28:00 Etc/GMT+5", "2009-08-19T23:28:00Z"),
        ("Wed, 19 Aug 2009 18:28:00 Etc/Nowhere", nil),
        ("2004-02-28T18:14:55-08:00", "2004-02-29T02:14:55Z"),
        ("  2003-12-31T10:14:55Z\n", "2003-12-31T10:14:55Z"),
        // other languages
        ("Κυρ, 11 Ιούλ 2004 12:00:00 EST", "2004-07-11T17:00:00Z"),
        ("2004-05-25 오후 11:23:17", "2004-05-25T14:23:17Z"),
        ("2004년 05월 28일  01:31:15", "2004-05-27T16:31:15Z"),
        ("2004-július-13T9:15-05:00", "2004-07-13T14:15:00Z"),
        // unparseable: absent, never "now"
        ("", nil),
        ("not a date", nil),
        ("2003-12-31T25:14:55Z", nil),
        ("2003-12-31T10:61:55Z", nil),
        ("2003-02-30", nil),
        ("Sun, 16 Dec 2012 1:2:3:4 GMT", nil),
        ("Sun, 16 Dec 2012 11:47:32 +zz:00", nil),
        ("2013-01-28T11:30:00-06:00Textra", nil),
        ("Sun, 31 Dec 9999 23:59:59 -9999", nil),
        ("9999-12-31T23:59:59-10:00", nil),
        ("013", nil),
    ]

    @Test(arguments: table)
    func parses(_ input: String, _ expected: String?) {
        #expect(DateParser.parse(input)?.rfc3339 == expected, "\(input)")
    }

    @Test func formatsYearsBefore1000WithFourDigits() {
        #expect(DateParser.parse("Thu, 01 Jan 0100 00:00:01 +0100")?.rfc3339 == "0099-12-31T23:00:01Z")
    }

    @Test func formatsBothOutputForms() {
        let cases: [(Int64, String, String)] = [
            (0, "1970-01-01T00:00:00Z", "Thu, 01 Jan 1970 00:00:00 GMT"),
            (1_073_000_901, "2004-01-01T23:48:21Z", "Thu, 01 Jan 2004 23:48:21 GMT"),
            (-1, "1969-12-31T23:59:59Z", "Wed, 31 Dec 1969 23:59:59 GMT"),
            (951_782_400, "2000-02-29T00:00:00Z", "Tue, 29 Feb 2000 00:00:00 GMT"),
            (253_402_300_799, "9999-12-31T23:59:59Z", "Fri, 31 Dec 9999 23:59:59 GMT"),
        ]
        for (seconds, rfc3339, rfc822) in cases {
            let timestamp = Timestamp(secondsSince1970: seconds)
            #expect(timestamp.rfc3339 == rfc3339)
            #expect(timestamp.rfc822 == rfc822)
            #expect(DateParser.parse(rfc822) == timestamp)
        }
    }

    /// The fast path for canonical RFC 822 must agree with the general
    /// scanner on everything it accepts, and decline what it does not know.
    @Test func rfc822FastPathAgreesWithTheWordScanner() {
        let zones = ["GMT", "UT", "UTC", "Z", "+0200", "-0530", "+2359", "+2400", "-0060", "EST", "+02:00", "gmt"]
        var accepted = 0
        for seconds in stride(from: Int64(-2_000_000_000), to: 4_000_000_000, by: 7_777_777) {
            let canonical = Timestamp(secondsSince1970: seconds).rfc822.dropLast(4)  // without " GMT"
            let noWeekday = canonical.dropFirst(5)
            let oneDigitDay = noWeekday.hasPrefix("0") ? noWeekday.dropFirst() : noWeekday
            for form in [canonical, noWeekday, oneDigitDay, "Xyz, " + noWeekday, "Tue," + noWeekday] {
                for zone in zones {
                    let text = form + " " + zone
                    let fast = text.utf8.withContiguousStorageIfAvailable { RFC822FastPath.scan($0) } ?? nil
                    var words: Timestamp? = nil
                    text.utf8.withContiguousStorageIfAvailable {
                        var scanner = WordDateScanner($0)
                        words = scanner.scan()
                    }
                    if let fast {
                        accepted += 1
                        #expect(fast == words, "\(text)")
                    }
                }
            }
        }
        #expect(accepted > 2000)
        for text in ["Tue, 31 Feb 2020 10:00:00 GMT", "Tue, 01 Jan 2020 10:00 GMT", "01 Jan 20 10:00:00 GMT"] {
            #expect(text.utf8.withContiguousStorageIfAvailable { RFC822FastPath.scan($0) } ?? nil == nil, "\(text)")
        }
    }

    @Test func civilTimeRoundTripsEveryDayOfFourCenturies() {
        var day = CivilTime.days(year: 1800, month: 1, day: 1)
        let end = CivilTime.days(year: 2200, month: 1, day: 1)
        while day < end {
            let (y, m, d) = CivilTime.date(days: day)
            #expect(CivilTime.days(year: y, month: m, day: d) == day)
            day += 1
        }
    }
}
