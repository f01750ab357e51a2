import Testing
import MouchardStore

// Replaced by the module's real tests when its issue lands.
