import Foundation
import MouchardCLI

exit(Mouchard.main(Array(CommandLine.arguments.dropFirst())))
