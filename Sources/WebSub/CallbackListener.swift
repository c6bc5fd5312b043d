import Basics
import Foundation

/// The WebSub callback on `HOST:PORT` (behind the public address the
/// subscriber gives hubs): a thread of its own, one connection at a time,
/// each with 10 s to send its request (a delivery, at most the body cap)
/// and read the answer.
public final class CallbackListener: Sendable {
    /// The address as bound (the port the system chose for port 0).
    public let address: String

    public init(listening on: String, subscriber: WebSubSubscriber) throws(ListeningSocket.Failure) {
        let socket = try ListeningSocket(listening: on)
        address = socket.address
        let thread = Thread {
            socket.acceptForever(limitSeconds: 10) { connection in
                let answer: CallbackAnswer
                switch Result(catching: { () throws(CallbackRequest.Problem) in
                    try CallbackRequest.read(connection, maximumBodyBytes: subscriber.settings.maximumBodyBytes)
                }) {
                case .success(let request): answer = subscriber.answer(request)
                case .failure(.tooLarge): answer = CallbackAnswer(status: 413)
                case .failure(.lengthRequired): answer = CallbackAnswer(status: 411)
                case .failure(.malformed): answer = CallbackAnswer(status: 400)
                }
                ListeningSocket.send(answer.bytes, to: connection)
            }
        }
        thread.name = "feedmerge.websub"
        thread.start()
    }
}
