import Foundation
import Glibc

/// A program run over one document as a Unix filter: the document on its
/// standard input, its standard output the result. Started with
/// `posix_spawn` (no shell: the arguments are the program's own), with
/// `LC_ALL=C` and no other environment, its three streams on sockets of
/// its own (written with `MSG_NOSIGNAL`, so a program that stops reading
/// costs no SIGPIPE); killed at its time limit or when its output passes
/// its limit.
enum FilterProcess {
    enum Outcome {
        case finished(status: Int32, output: [UInt8], errors: [UInt8])
        case expired
        case failed(String)
    }

    static func run(_ program: String, _ arguments: [String], input: [UInt8], timeLimit: Double, outputLimit: Int)
        -> Outcome
    {
        var pairs: [[Int32]] = []
        defer { for pair in pairs { for descriptor in pair where descriptor >= 0 { close(descriptor) } } }
        for _ in 0..<3 {
            var pair: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
                return .failed("socketpair: \(String(cString: strerror(errno)))")
            }
            pairs.append(pair)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for stream in 0..<3 { posix_spawn_file_actions_adddup2(&actions, pairs[stream][1], Int32(stream)) }
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let environment = [strdup("LC_ALL=C"), nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in environment { free(pointer) }
        }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, program, &actions, nil, argv, environment)
        guard spawned == 0 else { return .failed("\(program): \(String(cString: strerror(spawned)))") }
        for pair in pairs.indices {
            close(pairs[pair][1])
            pairs[pair][1] = -1
        }
        let outcome = exchange(pid: pid, pairs.map { $0[0] }, input: input, timeLimit: timeLimit, limit: outputLimit)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard let (output, errors) = outcome else { return .expired }
        guard let output else { return .failed("its output passed \(outputLimit) bytes") }
        // A program ended by a signal: 128 + the signal, as a shell says it.
        let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return .finished(status: code, output: output, errors: errors)
    }

    /// Writes the input and reads both outputs until they end; nil when the
    /// time ran out (the process is killed), a nil output when it passed the limit.
    private static func exchange(pid: pid_t, _ streams: [Int32], input: [UInt8], timeLimit: Double, limit: Int)
        -> (output: [UInt8]?, errors: [UInt8])?
    {
        let deadline = now() + timeLimit
        var written = 0
        var inputOpen = true
        var output: [UInt8] = []
        var errors: [UInt8] = []
        var open = [true, true]
        var chunk = [UInt8](repeating: 0, count: 65536)
        if input.isEmpty { shutdown(streams[0], Int32(SHUT_WR)); inputOpen = false }
        while open[0] || open[1] {
            let left = deadline - now()
            guard left > 0 else {
                kill(pid, SIGKILL)
                return nil
            }
            var polled = [pollfd(fd: inputOpen ? streams[0] : -1, events: Int16(POLLOUT), revents: 0)]
            for index in 0..<2 {
                polled.append(pollfd(fd: open[index] ? streams[index + 1] : -1, events: Int16(POLLIN), revents: 0))
            }
            let ready = poll(&polled, nfds_t(polled.count), Int32(min(left * 1000 + 1, 60_000)))
            if ready < 0 && errno != EINTR { kill(pid, SIGKILL); return nil }
            if inputOpen && polled[0].revents != 0 {
                let sent = input.withUnsafeBytes {
                    send(
                        streams[0], $0.baseAddress! + written, min(input.count - written, 65536),
                        Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
                if sent > 0 { written += sent }
                if written == input.count || (sent < 0 && errno != EAGAIN && errno != EINTR) {
                    shutdown(streams[0], Int32(SHUT_WR))
                    inputOpen = false
                }
            }
            for index in 0..<2 where open[index] && polled[index + 1].revents != 0 {
                let count = recv(streams[index + 1], &chunk, chunk.count, Int32(MSG_DONTWAIT))
                if count > 0 {
                    if index == 0 {
                        output += chunk[..<count]
                    } else if errors.count < 4096 {
                        errors += chunk[..<count]
                    }
                } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                    open[index] = false
                }
            }
            if output.count > limit {
                kill(pid, SIGKILL)
                return (nil, errors)
            }
        }
        return (output, errors)
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
