internal import CCurl
import Foundation

/// Turns a finished transfer (libcurl's result code, the statuses seen, the
/// flags the callbacks raised) into a response or a typed error.
enum TransferOutcome {
    static func result(of transfer: Transfer, code: CURLcode) -> Result<FetchResponse, FetchError> {
        do {
            return try checkedResult(of: transfer, code: code)
        } catch {
            return .failure(FetchError(error, url: transfer.request.url, stage: .transfer))
        }
    }

    /// - Throws: a `curl_easy_getinfo` that failed.
    private static func checkedResult(of transfer: Transfer, code: CURLcode) throws(CurlError)
        -> Result<FetchResponse, FetchError>
    {
        let url = transfer.request.url
        func error(_ kind: FetchError.Code, _ stage: FetchError.Stage, _ message: String, status: Int? = nil)
            -> Result<FetchResponse, FetchError>
        {
            .failure(FetchError(code: kind, url: url, stage: stage, message: message, status: status))
        }
        if transfer.exceededSizeLimit {
            let cut = try response(of: transfer)
            var failure = FetchError(
                code: .tooLarge, url: url, stage: .transfer,
                message: "body larger than \(transfer.configuration.maximumBodyBytes) bytes (decoded)",
                status: cut.status == 0 ? nil : cut.status)
            if (200..<300).contains(cut.status) { failure.partialResponse = cut }
            return .failure(failure)
        }
        if let refused = transfer.refusedAddress { return error(.refusedAddress, .connect, refused) }
        let bufferMessage = transfer.easy.errorMessage
        let curlMessage = bufferMessage.isEmpty ? String(cString: curl_easy_strerror(code)) : bufferMessage
        switch code {
        case CURLE_OK:
            break
        case CURLE_UNSUPPORTED_PROTOCOL:
            return error(.refusedProtocol, .request, "only http and https are fetched: \(curlMessage)")
        case CURLE_TOO_MANY_REDIRECTS:
            return error(.tooManyRedirects, .request, curlMessage)
        case CURLE_OPERATION_TIMEDOUT:
            return error(.timeout, .transfer, curlMessage)
        case CURLE_BAD_CONTENT_ENCODING:
            return error(.badEncoding, .decode, curlMessage)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT:
            return error(.transport, .connect, curlMessage)
        default:
            return error(.transport, .transfer, curlMessage)
        }
        let response = try response(of: transfer)
        let status = response.status
        if (200..<300).contains(status) || status == 304 { return .success(response) }
        var failure = FetchError(
            code: .httpStatus, url: url, stage: .transfer, message: "HTTP \(status)", status: status)
        if status == 429 || status == 503, let retry = transfer.headers.retryAfter {
            failure.retryAfter = RetryAfter(parsing: retry)
        }
        failure.botChallenge = BotChallenge.evidence(status: status, headers: transfer.headers, body: transfer.body)
        return .failure(failure)
    }

    /// The response as the transfer received it: status, final URL, redirects, headers, body, time taken.
    private static func response(of transfer: Transfer) throws(CurlError) -> FetchResponse {
        let easy = transfer.easy
        let status = try easy.long(CURLINFO_RESPONSE_CODE, "CURLINFO_RESPONSE_CODE")
        let effective = try easy.string(CURLINFO_EFFECTIVE_URL, "CURLINFO_EFFECTIVE_URL")
        let total = try easy.offset(CURLINFO_TOTAL_TIME_T, "CURLINFO_TOTAL_TIME_T")
        let hops = transfer.statuses.filter { $0 >= 200 || $0 < 100 }.dropLast()
        return FetchResponse(
            status: status, finalURL: effective ?? transfer.request.url, redirected: !hops.isEmpty,
            permanentlyRedirected: !hops.isEmpty && hops.allSatisfy { $0 == 301 || $0 == 308 },
            headers: transfer.headers, body: status == 304 ? [] : transfer.body,
            timings: .init(total: Double(total) / 1e6))
    }
}
