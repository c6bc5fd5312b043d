import Commands
import Glibc

exit(await FeedmergeCommandLine.run(Array(CommandLine.arguments.dropFirst()), allocator: Allocator.linked))
