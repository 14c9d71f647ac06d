import VPSGeometry

struct PoseConsistencyGate: Sendable {
    private(set) var anchor: Rigid3?
    private(set) var anchorTrust: AnchorTrust?
    private(set) var isStale = false
    private(set) var consecutiveRejections = 0
    var challengerCount: Int { 0 }

    init() {}

    mutating func evaluate(_ fix: GateFix, settings: GateSettings) -> (decision: GateDecision, log: String) {
        let previous = anchorTrust
        anchor = fix.worldFromMap
        anchorTrust = anchorTrust ?? (fix.isMultiFrame ? .trusted : .provisional)
        isStale = false
        consecutiveRejections = 0
        let acceptance = GateAcceptance(
            kind: previous == nil ? .bootstrap : .agreeing, worldFromMap: fix.worldFromMap, trust: anchorTrust!,
            previousTrust: previous, correctedFrom: nil)
        return (.accept(acceptance), "gate: accept")
    }

    mutating func markStale() { if anchor != nil { isStale = true } }

    mutating func reset() { self = PoseConsistencyGate() }
}
