import Synchronization
import Testing
import VPSTestSupport

@testable import VPSGeometry

/// A clock moved by hand; `onRead` lets a test move it from inside the loop that reads it.
final class HandClock: DeadlineClock, @unchecked Sendable {
    let time = Mutex(0.0)
    let reads = Mutex(0)
    let advanceEvery: Int
    init(advanceEvery: Int = 0) { self.advanceEvery = advanceEvery }

    func now() -> Double {
        let n = reads.withLock { r in
            r += 1
            return r
        }
        if advanceEvery > 0, n % advanceEvery == 0 { time.withLock { $0 += 1 } }
        return time.withLock { $0 }
    }
}

@Suite struct DeadlineTests {
    @Test func deadlinesPassOnTheirClock() {
        let clock = HandClock()
        let d = Deadline.after(2, clock: clock)
        #expect(!d.hasPassed && d.remaining == 2 && d.overrun == 0)
        clock.time.withLock { $0 = 2.5 }
        #expect(d.hasPassed && d.overrun == 0.5)
        #expect(!Deadline.never.hasPassed && Deadline.never.remaining == .infinity)
        #expect(Deadline(instant: 3, clock: clock) == Deadline(instant: 3, clock: HandClock()))
    }

    /// RANSAC stops at a passed deadline within 16 iterations and keeps the best model so far.
    @Test func ransacStopsAtItsDeadline() {
        var rng = SplitMix64(testName: "Deadline.ransac")
        let problem = NoisyPnP(outlierRatio: 0.97, rng: &rng)
        var options = AbsolutePoseOptions()
        options.ransac.minIterations = 5000
        options.ransac.maxIterations = 5000
        let free = estimateAbsolutePose(
            pixels: problem.pixels, points: problem.points, camera: problem.camera, options: options)
        #expect(free.ransac.iterations == 5000 && !free.ransac.stoppedByDeadline)

        // Passed before the start: no sample is drawn.
        let past = HandClock()
        past.time.withLock { $0 = 10 }
        options.ransac.deadline = Deadline(instant: 5, clock: past)
        let none = estimateAbsolutePose(
            pixels: problem.pixels, points: problem.points, camera: problem.camera, options: options)
        #expect(none.ransac.iterations == 0 && none.ransac.stoppedByDeadline && none.camFromWorld == nil)

        // Passing during the loop: the clock moves one second every 10 reads (one read per 16 draws).
        let moving = HandClock(advanceEvery: 10)
        options.ransac.deadline = Deadline(instant: 3, clock: moving)
        let cut = estimateAbsolutePose(
            pixels: problem.pixels, points: problem.points, camera: problem.camera, options: options)
        #expect(cut.ransac.stoppedByDeadline)
        #expect(cut.ransac.iterations == 16 * 29)
    }
}
