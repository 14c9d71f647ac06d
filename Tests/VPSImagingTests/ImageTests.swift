import Testing

@testable import VPSImaging

@Suite struct ImageTests {
    @Test func grayFromRGBUsesBT601Weights() {
        let rgb = RGBImage(width: 2, height: 1, pixels: [255, 0, 0, 0, 0, 255])
        #expect(rgb.gray.pixels == [76, 29])
    }
}
