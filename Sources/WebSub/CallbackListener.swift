import Basics
import Foundation

/// The WebSub callback on `HOST:PORT` (behind the public address the
/// subscriber gives hubs): a thread that accepts, and a thread for each
/// connection, at most 16 at once (more are closed at once), each with 10 s
/// to send its request (a delivery, at most the body cap) and read the
/// answer: a client that sends slowly holds one of them, not the callback.
public final class CallbackListener: Sendable {
    /// The address as bound (the port the system chose for port 0).
    public let address: String

    public init(listening on: String, subscriber: WebSubSubscriber) throws(ListeningSocket.Failure) {
        let socket = try ListeningSocket(listening: on)
        address = socket.address
        let open = Locked(0)
        let thread = Thread {
            socket.handOffForever(limitSeconds: 10) { connection in
                let admitted = open.withLock { count -> Bool in
                    guard count < Self.concurrentConnections else { return false }
                    count += 1
                    return true
                }
                guard admitted else {
                    close(connection)
                    return
                }
                let serving = Thread {
                    ListeningSocket.send(Self.answer(connection, subscriber: subscriber).bytes, to: connection)
                    close(connection)
                    open.withLock { $0 -= 1 }
                }
                serving.name = "feedmerge.websub.connection"
                serving.start()
            }
        }
        thread.name = "feedmerge.websub"
        thread.start()
    }

    /// Connections served at once.
    static let concurrentConnections = 16

    private static func answer(_ connection: Int32, subscriber: WebSubSubscriber) -> CallbackAnswer {
        switch Result(catching: { () throws(CallbackRequest.Problem) in
            try CallbackRequest.read(connection, maximumBodyBytes: subscriber.settings.maximumBodyBytes)
        }) {
        case .success(let request): subscriber.answer(request)
        case .failure(.tooLarge): CallbackAnswer(status: 413)
        case .failure(.lengthRequired): CallbackAnswer(status: 411)
        case .failure(.malformed): CallbackAnswer(status: 400)
        }
    }
}
