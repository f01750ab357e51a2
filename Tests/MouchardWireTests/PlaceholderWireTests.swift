import Testing
import MouchardWire

// Replaced by the module's real tests when its issue lands.
