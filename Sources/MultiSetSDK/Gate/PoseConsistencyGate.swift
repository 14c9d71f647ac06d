import VPSGeometry

/// The pose-consistency gate of SPEC §9: decides, for every fix, whether it moves the anchor (the applied
/// map-to-world offset), refines it, or is rejected as a false positive.
///
/// A pure value: no clock (frame times are the only clock), no callbacks. The session feeds it fixes with the
/// settings in force and turns each decision into scene updates and callbacks. Offsets are `worldFromMap` in
/// the frame source's world frame, metres.
///
/// A fix holding a non-finite value (offset, camera position, viewpoint or frame time) or a degenerate
/// quaternion is **rejected**, never adopted: it counts as a rejection (cause `.insufficientViewpoints`,
/// support 0, distance and heading reported as infinite) and leaves the rest of the state untouched.
///
/// Readings of SPEC §9 where it leaves room:
/// - Ages are measured against the evaluated fix's frame time; "older than 300 s" means strictly more.
/// - A stale adoption keeps the trust exactly (no promotion in that step) but, being an anchor-agreeing fix,
///   adds its viewpoints to the anchor support and to every challenger's incumbent support.
/// - A stale challenger with one fix is `.reestablishing` whatever its margin; the margin test decides only
///   from two fixes on. Its info counts fixes: `challengerSupport` = fixes held, `requiredSupport` = 2.
/// - "The oldest" challenger is the one created first; a fix joins the first (oldest) challenger it agrees
///   with under the same distance and heading limits as for the anchor.
/// - A fix without viewpoints contributes no support.
struct PoseConsistencyGate: Sendable {
    /// The window keeps at most this many agreeing fixes.
    static let windowCapacity = 5
    /// Window fixes and challengers older than this (by frame time) are dropped, seconds.
    static let maximumAge = 300.0
    /// At most this many challengers are kept; a new one evicts the oldest.
    static let challengerCapacity = 3
    /// A challenger of a stale anchor displaces it once it holds this many fixes.
    static let staleDisplacementFixes = 2

    /// The anchor (`worldFromMap`), or nil before the first fix of a world frame.
    private(set) var anchor: Rigid3?
    /// Trust of the anchor, nil without one.
    private(set) var anchorTrust: AnchorTrust?
    /// True after a recoverable tracking loss until a fix re-establishes the anchor.
    private(set) var isStale = false
    /// Rejections in a row: +1 per rejection, 0 on accept or reset (§8.8).
    private(set) var consecutiveRejections = 0
    /// Up to five most recent agreeing fixes not older than 300 s, oldest first.
    private(set) var window: [GateFix] = []
    /// Distinct viewpoints supporting the anchor.
    private(set) var support = ViewpointSet()
    /// Live challengers, oldest first.
    private(set) var challengers: [GateChallenger] = []

    /// The number of live challengers (pruned at each evaluation).
    var challengerCount: Int { challengers.count }

    /// Distinct viewpoints supporting the anchor (drives promotion).
    var anchorSupport: Int { support.count }

    /// An empty gate: the next fix bootstraps.
    init() {}

    /// Marks the anchor stale after a recoverable tracking loss (§9.8); clears nothing else. No effect
    /// without an anchor.
    mutating func markStale() {
        if anchor != nil { isStale = true }
    }

    /// Discards the anchor, window, support, challengers and the rejection counter (world-origin reset,
    /// `resetPoseConsistencyReference()`, check switched off).
    mutating func reset() {
        self = PoseConsistencyGate()
    }

    /// Decides on one fix (§9.5) and updates the state.
    ///
    /// - Parameters:
    ///   - fix: a fix that passed §8.5 steps 1–6.
    ///   - settings: the thresholds in force now.
    /// - Returns: the decision and the one §9.7 log line.
    mutating func evaluate(_ fix: GateFix, settings: GateSettings) -> (decision: GateDecision, log: String) {
        guard fix.isWellFormed else { return rejectMalformed(fix, settings: settings) }
        let fix = fix.sanitized
        prune(now: fix.frameTime)
        guard let current = anchor, let trust = anchorTrust else { return bootstrap(fix, settings: settings) }
        let discrepancy = GateDiscrepancy(reference: current, fix: fix)
        let disagreement = discrepancy.disagreement(under: settings)
        switch (isStale, disagreement) {
        case (true, nil):
            return adoptStale(fix, discrepancy: discrepancy, trust: trust, settings: settings)
        case (false, nil):
            return agree(fix, discrepancy: discrepancy, trust: trust, settings: settings)
        case (true, let disagreement?):
            return challengeStale(
                fix, discrepancy: discrepancy, disagreement: disagreement, trust: trust, settings: settings)
        case (false, let disagreement?):
            return challenge(
                fix, discrepancy: discrepancy, disagreement: disagreement, trust: trust, settings: settings)
        }
    }

    // MARK: - Steps of §9.5

    /// Step 1: drops window fixes and challengers whose newest fix are older than 300 s at `now`.
    private mutating func prune(now: Double) {
        window.removeAll { now - $0.frameTime > Self.maximumAge }
        challengers.removeAll { now - $0.newestFrameTime > Self.maximumAge }
    }

    /// Step 2: the first fix becomes the anchor unchecked.
    private mutating func bootstrap(_ fix: GateFix, settings: GateSettings) -> (GateDecision, String) {
        let trust: AnchorTrust = fix.isMultiFrame ? .trusted : .provisional
        anchor = fix.worldFromMap
        anchorTrust = trust
        isStale = false
        window = [fix]
        support = ViewpointSet(fixes: [fix])
        challengers = []
        return accept(
            .bootstrap, trust: trust, previousTrust: nil, correctedFrom: nil, discrepancy: nil, vote: nil,
            settings: settings)
    }

    /// Step 3, agreeing: the fix's offset replaces the stale anchor outright; trust is kept.
    private mutating func adoptStale(
        _ fix: GateFix, discrepancy: GateDiscrepancy, trust: AnchorTrust, settings: GateSettings
    ) -> (GateDecision, String) {
        anchor = fix.worldFromMap
        window = [fix]
        isStale = false
        support.add(fix)
        for index in challengers.indices { challengers[index].addIncumbent(fix) }
        return accept(
            .staleAdopted, trust: trust, previousTrust: trust, correctedFrom: nil, discrepancy: discrepancy,
            vote: nil, settings: settings)
    }

    /// Step 3, disagreeing: the fix joins a challenger, which displaces the stale anchor once it holds two
    /// fixes and passes the margin test.
    private mutating func challengeStale(
        _ fix: GateFix, discrepancy: GateDiscrepancy, disagreement: Disagreement, trust: AnchorTrust,
        settings: GateSettings
    ) -> (GateDecision, String) {
        let index = join(fix, settings: settings)
        let challenger = challengers[index]
        let required = settings.requiredSupport(trust: trust, mapCode: fix.mapCode)
        let enoughFixes = challenger.fixes.count >= Self.staleDisplacementFixes
        if enoughFixes && challenger.passesMarginTest {
            let vote = GateReport.Vote(
                support: challenger.support.count, required: required, incumbent: challenger.incumbent.count)
            return displace(by: challenger, trust: trust, discrepancy: discrepancy, vote: vote, settings: settings)
        }
        let vote = GateReport.Vote(
            support: challenger.fixes.count, required: Self.staleDisplacementFixes,
            incumbent: challenger.incumbent.count)
        let (kind, cause): (RejectionKind, RejectionCause) =
            enoughFixes ? (.suspectedAliasing, .inlierMargin) : (.reestablishing, .insufficientViewpoints)
        return reject(
            fix, kind: kind, cause: cause, discrepancy: discrepancy, disagreement: disagreement, vote: vote,
            medianMargin: challenger.medianInlierMargin, trust: trust, settings: settings)
    }

    /// Step 4: an agreeing fix refines the anchor and may promote its trust.
    private mutating func agree(
        _ fix: GateFix, discrepancy: GateDiscrepancy, trust: AnchorTrust, settings: GateSettings
    ) -> (GateDecision, String) {
        window.append(fix)
        if window.count > Self.windowCapacity { window.removeFirst(window.count - Self.windowCapacity) }
        anchor = OffsetConsensus.offset(of: window.map(\.worldFromMap)) ?? fix.worldFromMap
        support.add(fix)
        for index in challengers.indices { challengers[index].addIncumbent(fix) }
        let promoted = trust.promoted(to: AnchorTrust(support: support.count))
        anchorTrust = promoted
        return accept(
            .agreeing, trust: promoted, previousTrust: trust, correctedFrom: nil, discrepancy: discrepancy,
            vote: nil, settings: settings)
    }

    /// Steps 5–8: a disagreeing fix joins or starts a challenger, which displaces the anchor only with enough
    /// distinct viewpoints, more than the anchor gathered meanwhile, and a clear inlier margin.
    private mutating func challenge(
        _ fix: GateFix, discrepancy: GateDiscrepancy, disagreement: Disagreement, trust: AnchorTrust,
        settings: GateSettings
    ) -> (GateDecision, String) {
        let challenger = challengers[join(fix, settings: settings)]
        let vote = GateReport.Vote(
            support: challenger.support.count,
            required: settings.requiredSupport(trust: trust, mapCode: fix.mapCode),
            incumbent: challenger.incumbent.count)
        let verdict: (RejectionKind, RejectionCause)? =
            if vote.support < vote.required {
                (.falsePositive, .insufficientViewpoints)
            } else if vote.support <= vote.incumbent {
                (.falsePositive, .anchorHeldVote)
            } else if !challenger.passesMarginTest {
                (.suspectedAliasing, .inlierMargin)
            } else {
                nil
            }
        guard let (kind, cause) = verdict else {
            return displace(by: challenger, trust: trust, discrepancy: discrepancy, vote: vote, settings: settings)
        }
        return reject(
            fix, kind: kind, cause: cause, discrepancy: discrepancy, disagreement: disagreement, vote: vote,
            medianMargin: challenger.medianInlierMargin, trust: trust, settings: settings)
    }

    /// Step 5: adds the fix to the first challenger it agrees with, else starts a new one (evicting the
    /// oldest beyond three).
    ///
    /// - Returns: the index of the challenger now holding the fix.
    private mutating func join(_ fix: GateFix, settings: GateSettings) -> Int {
        if let index = challengers.firstIndex(where: {
            GateDiscrepancy(reference: $0.offset, fix: fix).agrees(under: settings)
        }) {
            challengers[index].add(fix)
            return index
        }
        if challengers.count >= Self.challengerCapacity {
            challengers.removeFirst(challengers.count - Self.challengerCapacity + 1)
        }
        challengers.append(GateChallenger(first: fix))
        return challengers.count - 1
    }

    /// Step 8: the challenger becomes the anchor, with trust from its support; all challengers are dropped.
    private mutating func displace(
        by challenger: GateChallenger, trust: AnchorTrust, discrepancy: GateDiscrepancy, vote: GateReport.Vote,
        settings: GateSettings
    ) -> (GateDecision, String) {
        let old = anchor
        let newTrust = AnchorTrust(support: challenger.support.count)
        anchor = challenger.offset
        anchorTrust = newTrust
        window = Array(challenger.fixes.suffix(Self.windowCapacity))
        support = challenger.support
        challengers = []
        isStale = false
        return accept(
            .displaced, trust: newTrust, previousTrust: trust, correctedFrom: old, discrepancy: discrepancy,
            vote: vote, settings: settings)
    }

    // MARK: - Verdicts

    /// Records an acceptance: resets the rejection counter and writes the log line.
    private mutating func accept(
        _ kind: GateAcceptance.Kind, trust: AnchorTrust, previousTrust: AnchorTrust?, correctedFrom: Rigid3?,
        discrepancy: GateDiscrepancy?, vote: GateReport.Vote?, settings: GateSettings
    ) -> (GateDecision, String) {
        consecutiveRejections = 0
        let acceptance = GateAcceptance(
            kind: kind, worldFromMap: anchor ?? .identity, trust: trust, previousTrust: previousTrust,
            correctedFrom: correctedFrom)
        let log = GateReport.logLine(
            verdict: "accept (\(kind))", discrepancy: discrepancy, settings: settings, vote: vote,
            support: support.count, trust: trust, reason: GateReport.reason(accepted: kind))
        return (.accept(acceptance), log)
    }

    /// Records a rejection: increments the rejection counter, builds the info and the log line.
    private mutating func reject(
        _ fix: GateFix, kind: RejectionKind, cause: RejectionCause, discrepancy: GateDiscrepancy,
        disagreement: Disagreement, vote: GateReport.Vote, medianMargin: Double?, trust: AnchorTrust,
        settings: GateSettings
    ) -> (GateDecision, String) {
        consecutiveRejections += 1
        let reason = GateReport.reason(kind: kind, cause: cause)
        let info = FalsePositiveInfo(
            rejection: kind, cause: cause, disagreement: disagreement, jumpMeters: Float(discrepancy.distance),
            thresholdMeters: Float(settings.distanceThreshold), yawDeltaDegrees: Float(discrepancy.yawDegrees),
            thresholdDegrees: Float(settings.yawThresholdDegrees), challengerSupport: vote.support,
            requiredSupport: vote.required, incumbentSupport: vote.incumbent, consecutiveCount: consecutiveRejections,
            trust: trust, mapCodes: fix.mapCodes, confidence: fix.confidence.map(Float.init),
            inlierMargin: fix.inlierMargin.map(Float.init), reason: reason,
            summary: GateReport.summary(
                kind: kind, cause: cause, count: consecutiveRejections, discrepancy: discrepancy, settings: settings,
                vote: vote, medianMargin: medianMargin))
        let log = GateReport.logLine(
            verdict: "reject (\(kind.rawValue)/\(cause.rawValue))", discrepancy: discrepancy, settings: settings,
            vote: vote, support: support.count, trust: trust, reason: reason)
        return (.reject(info), log)
    }

    /// Rejects a fix holding a non-finite value without touching anything but the rejection counter.
    private mutating func rejectMalformed(_ fix: GateFix, settings: GateSettings) -> (GateDecision, String) {
        let trust = anchorTrust ?? .provisional
        let discrepancy = GateDiscrepancy(distance: .infinity, yawDegrees: .infinity)
        let vote = GateReport.Vote(
            support: 0, required: settings.requiredSupport(trust: trust, mapCode: fix.mapCode), incumbent: 0)
        var fix = fix
        fix.confidence = fix.confidence.flatMap { $0.isFinite ? $0 : nil }
        fix.inlierMargin = fix.inlierMargin.flatMap { $0.isFinite ? $0 : nil }
        var (decision, log) = reject(
            fix, kind: .falsePositive, cause: .insufficientViewpoints, discrepancy: discrepancy, disagreement: .both,
            vote: vote, medianMargin: nil, trust: trust, settings: settings)
        if case .reject(var info) = decision {
            info.reason = "The fix holds a non-finite value."
            decision = .reject(info)
            log += " (non-finite fix)"
        }
        return (decision, log)
    }
}
