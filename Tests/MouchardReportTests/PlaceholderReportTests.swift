import Testing
import MouchardReport

// Replaced by the module's real tests when its issue lands.
