import Foundation
import Testing
import VPSFeatures
import VPSGeometry

@testable import VPSLocalizer
@testable import VPSMap

/// Leave-one-out on real photographs with true poses: entry-P10 of the Strecha 2008 benchmark
/// (Tests/Fixtures/real, 10 images, 1023×682, wide baselines of 2–6 m, a façade 10–20 m away).
/// Before the map builder's thresholds were made scale-free, every map of this scene kept 4–13
/// points and no image localized.
@Suite(.serialized) struct LeaveOneOutRealTests {
    static let scene = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/real/entry-P10")

    @Test func everyImageOfEntryP10LocalizesAgainstTheOthers() throws {
        let model = try COLMAPImporter.readModel(from: Self.scene.appendingPathComponent("sparse"))
        #expect(model.images.count == 10)
        let results = try LeaveOneOutEvaluation.evaluate(
            model: model, imagesFolder: Self.scene.appendingPathComponent("images")
        ) { done, total, r in
            print(
                "  \(done)/\(total) \(r.name): inliers \(r.inliers), confidence "
                    + String(
                        format: "%.2f, error %.1f mm %.3f° %@", r.confidence, (r.positionError ?? .nan) * 1000,
                        r.rotationError ?? .nan, r.failure ?? ""))
        }
        let summary = EvaluationSummary(results)
        for line in summary.lines { print("  \(line)") }
        // Measured (deterministic; query keypoints aligned to the points' reference patches before the
        // final refit, residuals weighted by their full 2×2 covariance with the map's own observation
        // noise): 10 of 10 answered, median 27.1 mm / 0.092° (the mean of the middle two; 25.4 mm / 0.085° with the points'
        // uncertainty as an isotropic 1 px term — entry-P10 is the scene the 2×2 weighting does not
        // help, fountain-P11 and Herz-Jesus-P8 gain 18–30 %; 30.0 mm / 0.098° as detected), all
        // within (25 cm, 2°) and none wrong. The closest rival of each image is a pose shifted 12 m along
        // the façade's repeated bays, confirmed by projection; 0007–0009, at the row's ends, sit near a
        // margin of 2 (confidence 0.22–0.25 here) and are withheld under other seeds (docs/EVALUATION.md,
        // "What each answer owes to the draw") — a margin of 2 is inside the twin-room venues' wrong
        // answers. With the map's observations aligned too (`MapBuildOptions.alignObservations`): 8 of 10
        // answered, median 13.8 mm / 0.042°.
        #expect(summary.answered == 10)
        #expect(summary.recalls[1] == 1)
        #expect(summary.recalls[0] >= 0.8)
        #expect((summary.medianPositionError ?? 1) <= 0.032)
        #expect((summary.medianRotationError ?? 1) <= 0.097)
        let confident = results.filter { $0.confidence >= Localizer.answerConfidence }
        #expect(confident.count == 10)
        #expect(confident.allSatisfy { $0.isWithin(meters: 0.5, degrees: 5) })
        // Every image's pose, answered or withheld, is within (25 cm, 2°).
        #expect(results.allSatisfy { $0.isWithin(meters: 0.25, degrees: 2) })
        #expect(results.allSatisfy { $0.mapPoints >= 1_000 })
    }

    @Test func theFunnelOfTheFullSceneIsKeptInTheMap() throws {
        let (map, report) = try COLMAPImporter.importModel(
            modelFolder: Self.scene.appendingPathComponent("sparse"),
            imagesFolder: Self.scene.appendingPathComponent("images"), code: "MAP_ENTRYP10TEST", name: "entry")
        let funnel = try #require(map.buildFunnel)
        #expect(funnel == report.funnel)
        #expect(funnel.frames == 10 && funnel.coveredFrames == 10)
        // Stage by stage, each count bounded by the one before it.
        #expect(funnel.candidatePairs <= funnel.pairsScored)
        #expect(funnel.verifiedMatches <= funnel.matches)
        #expect(
            funnel.points + funnel.droppedDegenerate + funnel.droppedReprojection + funnel.droppedDepth
                + funnel.droppedUncertainty + funnel.droppedAngle == funnel.tracks)
        // Observations stay as detected (`MapBuildOptions.alignObservations` is opt-in); every point
        // keeps its reference patch.
        #expect(funnel.alignedObservations == nil)
        #expect(map.pointPatches?.count == PointPatch.count * map.pointCount)
        #expect(funnel.points == map.pointCount)
        #expect(funnel.points >= 1_300)
        // The scene's scale is its median viewing depth (the façade is 10–20 m from the cameras).
        #expect(funnel.sceneScale > 8 && funnel.sceneScale < 30)
        // The funnel survives the map file.
        let decoded = try MapFile.decode(try MapFile.encode(map))
        #expect(decoded.buildFunnel == funnel)
    }
}
