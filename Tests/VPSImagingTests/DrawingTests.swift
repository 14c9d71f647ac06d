import Testing

@testable import VPSImaging

@Suite struct DrawingTests {
    /// The set of pixels that differ from black.
    func painted(_ image: RGBImage) -> Set<[Int]> {
        var set = Set<[Int]>()
        for y in 0..<image.height { for x in 0..<image.width where image[x, y] != .black { set.insert([x, y]) } }
        return set
    }

    @Test func horizontalLineSetsExactlyItsPixels() {
        var image = RGBImage(width: 20, height: 10)
        image.drawLine(from: (x: 2, y: 5), to: (x: 10, y: 5), color: .red)
        #expect(painted(image) == Set((2...10).map { [$0, 5] }))
        #expect(image[2, 5] == .red && image[10, 5] == .red)
        var thick = RGBImage(width: 20, height: 10)
        thick.drawLine(from: (x: 10, y: 5), to: (x: 2, y: 5), color: .green, thickness: 3)
        #expect(painted(thick) == Set((2...10).flatMap { x in (4...6).map { [x, $0] } }))
    }

    @Test func linesOfAnySlopeAreConnected() {
        for (end, expectedCount) in [
            ((x: 17, y: 3), 18), ((x: 3, y: 17), 18), ((x: 12, y: 12), 13), ((x: 0, y: 9), 10),
        ] {
            var image = RGBImage(width: 20, height: 20)
            image.drawLine(from: (x: 0, y: 0), to: end, color: .white)
            let pixels = painted(image)
            #expect(pixels.count == expectedCount)
            #expect(pixels.contains([0, 0]) && pixels.contains([end.x, end.y]))
            // 8-connected: every pixel touches another painted pixel.
            for pixel in pixels {
                let neighbours = pixels.filter { max(abs($0[0] - pixel[0]), abs($0[1] - pixel[1])) == 1 }
                #expect(neighbours.count >= 1)
            }
        }
    }

    @Test func discAreaIsCloseToPiRSquared() {
        for radius in [4.0, 10.0, 12.5, 30.0] {
            var image = RGBImage(width: 100, height: 100)
            image.fillDisc(center: (x: 50, y: 50), radius: radius, color: .yellow)
            let area = Double(painted(image).count)
            let expected = Double.pi * radius * radius
            #expect(abs(area - expected) / expected < 0.1, "r = \(radius): \(area) vs \(expected)")
        }
        var dot = RGBImage(width: 5, height: 5)
        dot.fillDisc(center: (x: 2, y: 2), radius: 0, color: .white)
        #expect(painted(dot) == [[2, 2]])
    }

    @Test func rectanglesFillAndOutline() {
        var image = RGBImage(width: 30, height: 20)
        image.fillRectangle(x: 3, y: 4, width: 5, height: 6, color: .blue)
        #expect(painted(image).count == 30)
        var outline = RGBImage(width: 30, height: 20)
        outline.drawRectangle(x: 2, y: 3, width: 10, height: 8, color: .cyan, thickness: 2)
        #expect(painted(outline).count == 10 * 8 - 6 * 4)
        #expect(outline[2, 3] == .cyan && outline[11, 10] == .cyan && outline[6, 7] == .black)
        var polygon = RGBImage(width: 30, height: 20)
        polygon.drawPolyline([(x: 1, y: 1), (x: 20, y: 1), (x: 20, y: 15)], color: .magenta, closed: true)
        #expect(polygon[1, 1] == .magenta && polygon[20, 8] == .magenta && polygon[10, 8] == .magenta)
        var ring = RGBImage(width: 40, height: 40)
        ring.drawCircle(center: (x: 20, y: 20), radius: 10, color: .orange)
        #expect(ring[30, 20] == .orange && ring[20, 10] == .orange && ring[20, 20] == .black)
        let count = Double(painted(ring).count)
        #expect(abs(count - 2 * .pi * 10) / (2 * .pi * 10) < 0.25)
    }

    @Test func drawingOutsideTheImageIsClipped() {
        var image = RGBImage(width: 16, height: 12)
        let left = image.setPixel(x: -1, y: 0, to: .white)
        let right = image.setPixel(x: 16, y: 3, to: .white)
        let corner = image.setPixel(x: 15, y: 11, to: .white)
        #expect(!left && !right && corner)
        #expect(image.color(atX: 15, y: 11) == .white && image.color(atX: 16, y: 11) == nil)
        image = RGBImage(width: 16, height: 12)
        image.drawLine(from: (x: -100, y: 5), to: (x: 200, y: 5), color: .red)
        #expect(painted(image) == Set((0..<16).map { [$0, 5] }))
        image.drawLine(
            from: (x: -1_000_000, y: -1_000_000), to: (x: 1_000_000, y: 1_000_000), color: .green, thickness: 3)
        image.drawLine(from: (x: Int.min, y: Int.max), to: (x: Int.max, y: Int.min), color: .blue, thickness: 1000)
        image.drawLine(from: (x: 50, y: 50), to: (x: 90, y: 70), color: .blue, thickness: 5)
        image.fillDisc(center: (x: -5, y: -5), radius: 7, color: .yellow)
        image.fillDisc(center: (x: Int.max, y: Int.min), radius: 1e300, color: .yellow)
        image.fillDisc(center: (x: 3, y: 3), radius: .nan, color: .yellow)
        image.fillRectangle(x: Int.max - 1, y: Int.min, width: Int.max, height: Int.max, color: .cyan)
        image.fillRectangle(x: -10, y: -10, width: 15, height: 14, color: .cyan)
        #expect(image[0, 0] == .cyan && image[4, 3] == .cyan && image[5, 4] != .cyan)
        image.drawRectangle(x: Int.min, y: Int.min, width: Int.max, height: Int.max, color: .white, thickness: 3)
        image.drawCircle(center: (x: 8, y: 6), radius: 1e9, color: .white, thickness: 2)
        image.drawPolyline([(x: -50, y: -50), (x: 8, y: 6), (x: 500, y: -20)], color: .orange, thickness: 2)
        #expect(image.pixels.count == 3 * 16 * 12)
        var empty = RGBImage(width: 0, height: 0)
        empty.drawLine(from: (x: 0, y: 0), to: (x: 3, y: 3), color: .red, thickness: 2)
        empty.fillDisc(center: (x: 0, y: 0), radius: 3, color: .red)
        empty.drawRectangle(x: 0, y: 0, width: 3, height: 3, color: .red)
        #expect(empty.pixels.isEmpty)
    }
}
