import Testing
import MouchardProxy

// Replaced by the module's real tests when its issue lands.
