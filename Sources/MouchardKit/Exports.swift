// MouchardKit is what a Swift test suite imports: the flow and finding types, the device
// profile, the replayer and the mock server come with it.
@_exported import MouchardFindings
@_exported import MouchardFlow
@_exported import MouchardInspection
@_exported import MouchardReplay
