import Foundation

extension SessionMachine {
    // MARK: Tracking signals (SPEC §4.6, §9.8, §10)

    mutating func trackingSignal(_ signal: TrackingSignal, _ context: SessionContext, _ out: inout [SessionAction]) {
        let previous = tracking
        tracking = signal
        let state = signal.trackingState
        let wasTracking = trackingState == .tracking
        if state != trackingState {
            trackingState = state
            out.append(.callback(.trackingStateChanged(state)))
        }
        if signal == .initializing, let previous, previous != .initializing {
            worldOriginReset(context, &out)
        } else if signal.isLoss {
            sawLossSinceNormal = true
            if fixInWorld {
                gate.markStale()
                if wasTracking { trackingBreak(context, &out) }
            }
        }
        if signal == .normal {
            normalTracking(context, &out)
        } else {
            if signal != .initializing { sawLossSinceNormal = true }
            if activity == .autoDelay {
                out.append(.cancelTimer(.autoStart))
                activity = .autoArmed
            }
        }
    }

    private mutating func normalTracking(_ context: SessionContext, _ out: inout [SessionAction]) {
        switch activity {
        case .suspended:
            if appActive && isAuthenticated { startRun(.relocalization, escalation: false, context, &out) }
        case .autoArmed:
            if appActive {
                activity = .autoDelay
                out.append(.schedule(.autoStart, after: 1.5))
            }
        default:
            break
        }
        if sawLossSinceNormal, objectActive, config?.restartObjectTracking == true, objectPhase == .idle {
            out.append(.schedule(.objectRestart, after: 1.0))
        }
        sawLossSinceNormal = false
    }

    /// A tracking break after a fix in this world frame (SPEC §10.1).
    private mutating func trackingBreak(_ context: SessionContext, _ out: inout [SessionAction]) {
        guard config?.relocalization == true, isAuthenticated else { return }
        cancelRunAndTimers(now: context.now, &out)
        hideMeshesForRecovery(&out)
        activity = .suspended
    }

    private mutating func hideMeshesForRecovery(_ out: inout [SessionAction]) {
        let wasShown = meshesShown
        recoveryPending = true
        if hasMapMesh && wasShown { out.append(.scene(.setMapMeshesVisible(false))) }
    }

    /// A new world frame (SPEC §9.8): the gate forgets everything; after a fix this is a tracking break.
    mutating func worldOriginReset(_ context: SessionContext, _ out: inout [SessionAction]) {
        gate.reset()
        lastCapturedFrameTime = nil
        out.append(.log("world origin reset: gate state discarded"))
        guard fixInWorld else { return }
        fixInWorld = false
        if config?.relocalization == true && isAuthenticated {
            cancelRunAndTimers(now: context.now, &out)
            hideMeshesForRecovery(&out)
            activity = .suspended
            if tracking == .normal && appActive { startRun(.relocalization, escalation: false, context, &out) }
        } else {
            hideMeshesForRecovery(&out)
            // Nothing will recover this world frame on its own: its first fix is a first fix again, so
            // auto-localization and the first-until-success retries apply (D4: an AR screen opened again).
            firstFixLatch = true
        }
    }

    // MARK: App activity (SPEC §10.3)

    mutating func appActive(_ active: Bool, _ context: SessionContext, _ out: inout [SessionAction]) {
        guard active != appActive else { return }
        appActive = active
        if !active {
            wasInactive = true
            if let run = currentRun {
                out.append(.cancelQuery(runID: run.id))
                endRun(run, now: context.now, &out)
            }
            finishAttempt(.cancelled, &out)
            for kind in [TimerKind.capture, .retry, .autoStart, .objectRetry] { out.append(.cancelTimer(kind)) }
            if objectPhase == .retryDue { objectPhase = .idle }
            activity = .idle
            return
        }
        guard wasInactive else { return }
        wasInactive = false
        gate.reset()
        lastCapturedFrameTime = nil
        fixInWorld = false
        out.append(.log("returned from background: new world frame"))
        if hasLocalized {
            hideMeshesForRecovery(&out)
            if config?.relocalization == true && isAuthenticated {
                cancelRunAndTimers(now: context.now, &out)
                activity = .suspended
                if tracking == .normal { startRun(.relocalization, escalation: false, context, &out) }
            } else {
                firstFixLatch = true
            }
        } else {
            startAutoIfNeeded(now: context.now, &out)
        }
    }
}
