import Testing

@testable import VPSMap

@Suite struct TrackBuilderTests {
    typealias N = TrackBuilder.Node

    /// Three consistent links, a conflicting chain and a separate pair, added in this order.
    static func addExample(_ b: inout TrackBuilder) -> [Bool] {
        [
            b.addMatch(N(image: 0, keypoint: 1), N(image: 1, keypoint: 5)),
            b.addMatch(N(image: 1, keypoint: 5), N(image: 2, keypoint: 7)),
            b.addMatch(N(image: 2, keypoint: 7), N(image: 0, keypoint: 1)),  // closes the loop consistently
            b.addMatch(N(image: 0, keypoint: 2), N(image: 1, keypoint: 6)),
            b.addMatch(N(image: 1, keypoint: 6), N(image: 0, keypoint: 3)),  // two keypoints of image 0
            b.addMatch(N(image: 3, keypoint: 0), N(image: 4, keypoint: 0)),
        ]
    }

    @Test func chainsMergeAndConflictingTracksAreDropped() {
        var b = TrackBuilder(conflicts: .dropTrack)
        #expect(Self.addExample(&b) == [true, true, true, true, true, true])
        let (tracks, inconsistent) = b.tracks()
        #expect(inconsistent == 1 && b.refusedMatches == 0)
        #expect(
            tracks == [
                [N(image: 0, keypoint: 1), N(image: 1, keypoint: 5), N(image: 2, keypoint: 7)],
                [N(image: 3, keypoint: 0), N(image: 4, keypoint: 0)],
            ])
        #expect(b.tracks(minLength: 3).tracks.count == 1)
    }

    @Test func refusingKeepsTheFirstMatchAndTheRestOfTheTrack() {
        var b = TrackBuilder(conflicts: .refuseMatch)
        #expect(Self.addExample(&b) == [true, true, true, true, false, true])
        let (tracks, inconsistent) = b.tracks()
        #expect(inconsistent == 0 && b.refusedMatches == 1)
        #expect(
            tracks == [
                [N(image: 0, keypoint: 1), N(image: 1, keypoint: 5), N(image: 2, keypoint: 7)],
                [N(image: 0, keypoint: 2), N(image: 1, keypoint: 6)],
                [N(image: 3, keypoint: 0), N(image: 4, keypoint: 0)],
            ])
        // Keypoint 3 of image 0 stays a single view: no track.
        #expect(tracks.allSatisfy { !$0.contains(N(image: 0, keypoint: 3)) })
    }

    /// Refusal checks whole tracks, not only the two nodes: joining {0:1, 1:5} to {2:7, 0:9} shares image 0
    /// through nodes the match does not name; joining later through a third set still sees it.
    @Test func refusalSeesEveryImageOfBothTracks() {
        var b = TrackBuilder(conflicts: .refuseMatch)
        let added = [
            b.addMatch(N(image: 0, keypoint: 1), N(image: 1, keypoint: 5)),
            b.addMatch(N(image: 2, keypoint: 7), N(image: 0, keypoint: 9)),
            b.addMatch(N(image: 1, keypoint: 5), N(image: 2, keypoint: 7)),
            b.addMatch(N(image: 3, keypoint: 4), N(image: 1, keypoint: 5)),
            b.addMatch(N(image: 3, keypoint: 4), N(image: 0, keypoint: 9)),
        ]
        #expect(added == [true, true, false, true, false])
        let (tracks, _) = b.tracks()
        #expect(tracks.allSatisfy { Set($0.map(\.image)).count == $0.count })
        #expect(tracks.map(\.count).sorted() == [2, 3] && b.refusedMatches == 2)
    }

    @Test func mergedIfDisjointIsASortedUnionOrNil() {
        #expect(TrackBuilder.mergedIfDisjoint([0, 3, 7], [1, 2, 9]) == [0, 1, 2, 3, 7, 9])
        #expect(TrackBuilder.mergedIfDisjoint([], [4]) == [4])
        #expect(TrackBuilder.mergedIfDisjoint([0, 3, 7], [1, 7]) == nil)
    }
}
