import Foundation
import Testing
import VPSGeometry
import VPSImaging
import VPSTestSupport

@testable import VPSSimulation

@Suite struct RendererTests {
    /// A 0.4 m square card facing +Z at `centre`, its 256² texture black with Gaussian blobs
    /// (σ = 6 texels) at `blobs` (texel coordinates).
    static func card(centre: Vec3, blobs: [Vec2]) -> (Venue, Surface) {
        let n = 256
        var pixels = [UInt8](repeating: 0, count: 3 * n * n)
        for y in 0..<n {
            for x in 0..<n {
                var v = 0.0
                for b in blobs {
                    let dx = Double(x) + 0.5 - b.x, dy = Double(y) + 0.5 - b.y
                    v += exp(-(dx * dx + dy * dy) / (2 * 36))
                }
                let byte = UInt8(min(255, (255 * v).rounded()))
                pixels[3 * (y * n + x)] = byte
                pixels[3 * (y * n + x) + 1] = byte
                pixels[3 * (y * n + x) + 2] = byte
            }
        }
        let side = 0.4
        let surface = Surface.rectangle(
            topLeft: centre + Vec3(-side / 2, side / 2, 0), right: Vec3(1, 0, 0), down: Vec3(0, -1, 0), width: side,
            height: side, textureIndex: 0, texelSize: side / Double(n), name: "card")
        let venue = Venue(
            name: "card", surfaces: [surface], textures: [Texture(image: RGBImage(width: n, height: n, pixels: pixels))]
        )
        return (venue, surface)
    }

    /// Intensity-weighted centroid (pixel coordinates, centres at +0.5) in a window around `near`.
    static func centroid(_ image: GrayImage, near p: Vec2, radius: Int) -> Vec2? {
        var sum = 0.0, sx = 0.0, sy = 0.0
        let cx = Int(p.x), cy = Int(p.y)
        for y in (cy - radius)...(cy + radius) {
            for x in (cx - radius)...(cx + radius) {
                guard x >= 0, y >= 0, x < image.width, y < image.height else { return nil }
                let v = Double(image[x, y])
                sum += v
                sx += v * (Double(x) + 0.5)
                sy += v * (Double(y) + 0.5)
            }
        }
        return sum > 0 ? Vec2(sx / sum, sy / sum) : nil
    }

    @Test func texelsLandWhereCameraProjectSaysWithinATenthOfAPixel() throws {
        let blobs = [Vec2(64, 64), Vec2(192, 70), Vec2(128, 128), Vec2(60, 190), Vec2(200, 200)]
        let (venue, surface) = RendererTests.card(centre: Vec3(0, 1.5, 0), blobs: blobs)
        let renderer = Renderer(venue: venue, options: RenderOptions(background: .zero))
        let camera = Camera(fx: 300, fy: 310, cx: 161.3, cy: 119.6, width: 320, height: 240)
        var rng = SplitMix64(testName: "texelsLand")
        var worst = 0.0
        for _ in 0..<12 {
            // Eyes in front of the card, up to ~25° off its normal, slightly rolled.
            let eye = Vec3(0, 1.5, 0) + Vec3(rng.uniform(-0.4...0.4), rng.uniform(-0.3...0.3), rng.uniform(0.9...1.4))
            let up = Vec3(rng.uniform(-0.1...0.1), 1, 0)
            let target = Vec3(rng.uniform(-0.02...0.02), 1.5 + rng.uniform(-0.02...0.02), 0)
            let pose = Fixtures.lookAt(target, from: eye, up: up)
            let gray = renderer.render(camera: camera, camFromWorld: pose).gray
            for b in blobs {
                // The blob's centre in the world, from the surface's texture mapping.
                let point = surface.point(s: b.x / 256, t: b.y / 256)
                #expect((surface.textureCoordinate(of: point) - b).norm < 1e-9)
                let projected = try #require(camera.project(pose.transform(point)))
                let measured = try #require(RendererTests.centroid(gray, near: projected, radius: 14))
                worst = max(worst, (measured - projected).norm)
            }
        }
        #expect(worst < 0.1, "largest centroid error \(worst) px")
    }

    /// True when `p` (on the surface's plane) lies inside its convex outline.
    static func isInside(_ p: Vec3, _ s: Surface) -> Bool {
        let sides = s.vertices.indices.map { i in
            let a = s.vertices[i], b = s.vertices[(i + 1) % s.vertices.count]
            return (b - a).cross(p - a).dot(s.normal)
        }
        return sides.allSatisfy { $0 >= -1e-9 } || sides.allSatisfy { $0 <= 1e-9 }
    }

    @Test func depthBufferMatchesTheGeometry() {
        let venue = Fixtures.room
        let renderer = Renderer(venue: venue)
        let camera = Fixtures.smallCamera
        var target = RenderTarget(width: camera.width, height: camera.height)
        var rng = SplitMix64(testName: "depthBuffer")
        var matched = 0, checked = 0
        for _ in 0..<6 {
            let p = venue.walkableArea.randomPoint(using: &rng)
            let pose = Fixtures.camFromWorld(
                at: Vec3(p.x, 1.5, p.y), yaw: rng.uniform(0...(2 * .pi)), pitch: rng.uniform(-0.4...0.2))
            renderer.render(camera: camera, camFromWorld: pose, into: &target)
            for _ in 0..<300 {
                let index = rng.nextInt(below: venue.surfaces.count)
                let s = venue.surfaces[index]
                let world = s.point(s: rng.nextUnit(), t: rng.nextUnit())
                let pc = pose.transform(world)
                guard let px = camera.project(pc), px.x >= 1, px.y >= 1, px.x < 159, px.y < 119 else { continue }
                guard s.normal.dot(pose.center - world) > 0 else { continue }
                let x = Int(px.x), y = Int(px.y)
                // Depth of the surface's plane along the ray through the pixel centre.
                let ray = Vec3((Double(x) + 0.5 - camera.cx) / camera.fx, (Double(y) + 0.5 - camera.cy) / camera.fy, 1)
                let n = pose.rotation * s.normal
                let planeDepth = n.dot(pc) / n.dot(ray)
                // Only where the pixel centre's ray hits the surface inside its outline.
                let hit = pose.rotation.transposed * (ray * planeDepth - pose.translation)
                guard RendererTests.isInside(hit, s) else { continue }
                guard let rendered = target.depth(x: x, y: y) else {
                    Issue.record("nothing drawn at (\(x), \(y)) where \(s.name) projects")
                    continue
                }
                checked += 1
                // Whatever is drawn is never behind the surface...
                #expect(rendered <= planeDepth * (1 + 1e-5) + 1e-5)
                // ...and when it is the surface itself, the depth is exact.
                if target.surface(x: x, y: y) == index {
                    matched += 1
                    #expect(abs(rendered - planeDepth) < 1e-5 * planeDepth + 1e-6)
                }
            }
        }
        #expect(checked > 200)
        #expect(matched > checked / 3)
    }

    @Test func neverCrashesAndFillsTheFrame() {
        let venue = Fixtures.room
        let renderer = Renderer(venue: venue)
        let camera = Fixtures.smallCamera
        let room = venue.rooms[0]
        var poses: [CameraPose] = [
            // Inside the north wall, half in and half out of the room.
            Fixtures.camFromWorld(at: Vec3(0, 1.5, room.min.z), yaw: 0.3),
            Fixtures.camFromWorld(at: Vec3(0, 1.5, room.min.z - 0.2), yaw: .pi),
            // In a corner, 1 mm from two walls, looking along a wall (triangles cross the near plane).
            Fixtures.camFromWorld(at: Vec3(room.min.x + 0.001, 1.5, room.min.z + 0.001), yaw: .pi / 2 + 0.01),
            // On the floor plane itself, and looking along it.
            Fixtures.camFromWorld(at: Vec3(0.1, 0, 0.2), yaw: 1, pitch: 0),
            Fixtures.camFromWorld(at: Vec3(0.1, 0.1, 0.2), yaw: 1, pitch: -0.01),
            // Straight up and straight down.
            Fixtures.lookAt(Vec3(0, 5, 0), from: Vec3(0, 1.5, 0), up: Vec3(0, 0, 1)),
            Fixtures.lookAt(Vec3(0, 0, 0), from: Vec3(0, 1.5, 0), up: Vec3(0, 0, 1)),
            // Far outside, looking away from the venue: nothing to see.
            Fixtures.camFromWorld(at: Vec3(0, 1.5, 50), yaw: .pi),
        ]
        poses.append(CameraPose(rotation: .identity, translation: Vec3(.nan, 0, 0)))
        var target = RenderTarget(width: 1, height: 1)
        for pose in poses {
            renderer.render(camera: camera, camFromWorld: pose, into: &target)
            #expect(target.width == 160 && target.height == 120)
            #expect(target.image.pixels.count == 3 * 160 * 120)
        }
        // Looking out of the venue shows only background; looking along the floor from just
        // above it shows floor in the lower half.
        let away = renderer.render(camera: camera, camFromWorld: poses[7])
        #expect(away.pixels.allSatisfy { $0 == 96 })
        renderer.render(camera: camera, camFromWorld: poses[4], into: &target)
        #expect((0..<160).allSatisfy { target.surface(x: $0, y: 100) != nil })
        // From inside the room every pixel shows a surface.
        renderer.render(
            camera: camera, camFromWorld: Fixtures.camFromWorld(at: Vec3(0, 1.5, 0), yaw: 0.7), into: &target)
        #expect((0..<(160 * 120)).allSatisfy { target.surface(x: $0 % 160, y: $0 / 160) != nil })
        // A one-pixel camera.
        let tiny = Camera(fx: 1, fy: 1, cx: 0.5, cy: 0.5, width: 1, height: 1)
        #expect(renderer.render(camera: tiny, camFromWorld: poses[0]).pixels.count == 3)
    }

    @Test func aliasingRoomsLookTheSameFromCorrespondingPoses() throws {
        let venue = Fixtures.aliasing
        let symmetry = try #require(venue.symmetry)
        let renderer = Renderer(venue: venue)
        var rng = SplitMix64(testName: "aliasing")
        for _ in 0..<4 {
            let p = venue.walkableArea.randomPoint(inRegion: 0, using: &rng)
            let worldFromCamera = Rigid3(
                rotation: Trajectory.orientation(
                    yaw: rng.uniform(0...(2 * .pi)), pitch: rng.uniform(-0.3...0.2), roll: 0),
                translation: Vec3(p.x, 1.5, p.y))
            let twin = symmetry * worldFromCamera
            #expect(venue.rooms[1].contains(twin.translation))
            let a = renderer.render(
                camera: Fixtures.smallCamera,
                camFromWorld: CameraPose(CameraAxes.cvPose(fromARKit: worldFromCamera).inverse))
            let b = renderer.render(
                camera: Fixtures.smallCamera, camFromWorld: CameraPose(CameraAxes.cvPose(fromARKit: twin).inverse))
            let (meanAbsolute, identical) = Fixtures.compare(a, b)
            #expect(meanAbsolute < 0.05)
            #expect(identical > 0.995)
        }
    }

    @Test func mipmappingKeepsDistantTexturesSmooth() {
        // Seen from far away, level 0 alone aliases: neighbouring pixels jump more.
        let venue = Fixtures.corridor
        let pose = Fixtures.camFromWorld(at: Vec3(-9, 1.5, 0), yaw: -.pi / 2)
        func roughness(_ options: RenderOptions) -> Double {
            let gray = Renderer(venue: venue, options: options).render(camera: Fixtures.smallCamera, camFromWorld: pose)
                .gray
            var sum = 0
            for y in 0..<gray.height {
                for x in 1..<gray.width { sum += abs(Int(gray[x, y]) - Int(gray[x - 1, y])) }
            }
            return Double(sum)
        }
        #expect(roughness(RenderOptions()) < roughness(RenderOptions(mipmapping: false)))
    }

    @Test func twoTrianglesRenderExactlyLikeTheirQuad() throws {
        // Shared edges are drawn once: no gaps or double hits along the diagonal.
        let (venue, quad) = RendererTests.card(centre: Vec3(0, 1.5, 0), blobs: [Vec2(100, 90), Vec2(150, 170)])
        let v = quad.vertices
        func triangle(_ a: Int, _ b: Int, _ c: Int) -> Surface {
            Surface(
                vertices: [v[a], v[b], v[c]], normal: quad.normal, textureIndex: 0, textureOrigin: quad.textureOrigin,
                textureAxisU: quad.textureAxisU, textureAxisV: quad.textureAxisV)
        }
        let split = Venue(name: "split", surfaces: [triangle(0, 1, 2), triangle(0, 2, 3)], textures: venue.textures)
        var rng = SplitMix64(testName: "triangles")
        for _ in 0..<5 {
            let eye = Vec3(rng.uniform(-0.3...0.3), 1.5 + rng.uniform(-0.3...0.3), rng.uniform(0.3...1.2))
            let pose = Fixtures.lookAt(Vec3(0, 1.5, 0), from: eye, up: Vec3(rng.uniform(-0.5...0.5), 1, 0))
            var a = RenderTarget(width: 160, height: 120), b = RenderTarget(width: 160, height: 120)
            Renderer(venue: venue).render(camera: Fixtures.smallCamera, camFromWorld: pose, into: &a)
            Renderer(venue: split).render(camera: Fixtures.smallCamera, camFromWorld: pose, into: &b)
            #expect(a.image == b.image)
            #expect(a.depthMap == b.depthMap)
            let covered = (0..<(160 * 120)).filter { a.surface(x: $0 % 160, y: $0 / 160) != nil }.count
            #expect(covered > 1000)
        }
    }

    @Test func lerpIsExactAtTheEnds() {
        let a: UInt32 = 0x00_10_80_FF, b: UInt32 = 0x00_FF_00_20
        #expect(Renderer.lerp(a, b, 0) == a)
        #expect(Renderer.lerp(a, b, 256) == b)
        #expect(Renderer.lerp(a, a, 77) == a)
    }
}
