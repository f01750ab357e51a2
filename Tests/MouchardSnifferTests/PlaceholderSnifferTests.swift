import Testing
import MouchardSniffer

// Replaced by the module's real tests when its issue lands.
