import Testing

@testable import VPSMap

@Suite struct TrackBuilderTests {
    typealias N = TrackBuilder.Node

    @Test func chainsMergeAndConflictsAreDropped() {
        var b = TrackBuilder()
        b.addMatch(N(image: 0, keypoint: 1), N(image: 1, keypoint: 5))
        b.addMatch(N(image: 1, keypoint: 5), N(image: 2, keypoint: 7))
        b.addMatch(N(image: 2, keypoint: 7), N(image: 0, keypoint: 1))  // closes the loop consistently
        b.addMatch(N(image: 0, keypoint: 2), N(image: 1, keypoint: 6))
        b.addMatch(N(image: 1, keypoint: 6), N(image: 0, keypoint: 3))  // two keypoints of image 0: inconsistent
        b.addMatch(N(image: 3, keypoint: 0), N(image: 4, keypoint: 0))
        let (tracks, inconsistent) = b.tracks()
        #expect(inconsistent == 1)
        #expect(
            tracks == [
                [N(image: 0, keypoint: 1), N(image: 1, keypoint: 5), N(image: 2, keypoint: 7)],
                [N(image: 3, keypoint: 0), N(image: 4, keypoint: 0)],
            ])
        #expect(b.tracks(minLength: 3).tracks.count == 1)
    }
}
