import Testing
import MouchardFlow

// Replaced by the module's real tests when its issue lands.
