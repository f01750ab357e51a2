import Testing
import MouchardInspection

// Replaced by the module's real tests when its issue lands.
