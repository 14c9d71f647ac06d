import Testing
import VPSGeometry
import VPSSimulation

@Suite struct VenueTests {
    @Test(arguments: Venue.Kind.allCases)
    func sameSeedGivesTheSameVenue(kind: Venue.Kind) {
        let a = Venue.generate(kind, seed: 42, texelScale: 8)
        let b = Venue.generate(kind, seed: 42, texelScale: 8)
        #expect(a.surfaces == b.surfaces)
        #expect(a.textures == b.textures)
        #expect(a.walkableArea == b.walkableArea)
        #expect(a.worldFromObject == b.worldFromObject)
    }

    @Test(arguments: Venue.Kind.allCases)
    func differentSeedsGiveDifferentVenues(kind: Venue.Kind) {
        let a = Venue.generate(kind, seed: 1, texelScale: 8)
        let b = Venue.generate(kind, seed: 2, texelScale: 8)
        #expect(a.surfaces != b.surfaces)
        #expect(a.textures.map(\.image) != b.textures.map(\.image))
    }

    @Test func roomHasTheBriefsSize() {
        let size = Fixtures.room.rooms[0].size
        #expect((5.5...6.5).contains(size.x))
        #expect((4.5...5.5).contains(size.z))
        #expect((2.7...2.9).contains(size.y))
        #expect(Fixtures.room.surfaces.count >= 6 + 3 * 4)  // shell and at least three furniture boxes
        #expect(Fixtures.room.bounds.contains(Fixtures.room.rooms[0].center))
    }

    @Test func corridorHasTheBriefsSize() {
        let size = Fixtures.corridor.rooms[0].size
        #expect((19.5...20.5).contains(size.x))
        #expect((1.9...2.1).contains(size.z))
    }

    @Test func aliasingVenueIsTwoRoomsMappedOntoEachOtherBySymmetry() throws {
        let venue = Fixtures.aliasing
        let symmetry = try #require(venue.symmetry)
        #expect(venue.rooms.count == 2)
        // The symmetry swaps the rooms and maps every surface onto a surface.
        let a = venue.rooms[0], b = venue.rooms[1]
        #expect((symmetry * a.min).distance(to: Vec3(b.max.x, a.min.y, b.max.z)) < 1e-12)
        let half = venue.surfaces.count / 2
        for i in 0..<half {
            let mapped = venue.surfaces[i].transformed(by: symmetry)
            let twin = venue.surfaces[i + half]
            #expect(mapped.vertices == twin.vertices && mapped.textureIndex == twin.textureIndex)
        }
        // The doorway connects the rooms.
        #expect(venue.walkableArea.portals.count == 1)
    }

    @Test func objectVenueHasItsObjectOnTheTable() throws {
        let venue = Fixtures.object
        let worldFromObject = try #require(venue.worldFromObject)
        let bounds = try #require(venue.objectBounds)
        #expect(abs(worldFromObject.translation.y - 0.74) < 1e-9)
        #expect(venue.objectSurfaceIndices.count == 5)
        for i in venue.objectSurfaceIndices {
            for v in venue.surfaces[i].vertices {
                #expect(bounds.contains(worldFromObject.inverse * v, tolerance: 1e-9))
            }
        }
        // The object's frame is upright.
        #expect(worldFromObject.rotate(Vec3(0, 1, 0)).distance(to: Vec3(0, 1, 0)) < 1e-12)
    }

    @Test(arguments: Venue.Kind.allCases)
    func walkablePointsAreInsideRoomsAndAwayFromWalls(kind: Venue.Kind) {
        let venue = [Fixtures.room, Fixtures.corridor, Fixtures.aliasing, Fixtures.object][
            Venue.Kind.allCases.firstIndex(of: kind)!]
        var rng = SplitMix64(seed: 9)
        for _ in 0..<200 {
            let p = venue.walkableArea.randomPoint(using: &rng)
            #expect(venue.walkableArea.contains(p))
            let inRoom = venue.rooms.contains { r in
                p.x > r.min.x + 0.4 && p.x < r.max.x - 0.4 && p.y > r.min.z + 0.4 && p.y < r.max.z - 0.4
            }
            #expect(inRoom)
        }
    }

    @Test func texturesAreRichInContrast() {
        // Posters and boards: a good share of texels differ strongly from their neighbour.
        let wall = Fixtures.room.textures[Fixtures.room.surfaces.first { $0.name.contains("wall") }!.textureIndex]
        let gray = wall.image.gray
        var edges = 0
        for y in 0..<gray.height {
            for x in 1..<gray.width where abs(Int(gray[x, y]) - Int(gray[x - 1, y])) > 40 { edges += 1 }
        }
        #expect(Double(edges) / Double(gray.width * gray.height) > 0.005)
    }
}
