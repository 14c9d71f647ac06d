/// Lossless geometric transforms: quarter turns and crops.
extension PixelImage {
    /// The image turned by a quarter turn; width and height swap.
    ///
    /// Turning clockwise moves the top-left corner to the top-right: the output pixel (x, y) is the
    /// source pixel (y, height − 1 − x). Counter-clockwise it is (width − 1 − y, x).
    ///
    /// - Parameter clockwise: the direction of the turn, as seen on screen (y pointing down).
    /// - Returns: the rotated image, `height` wide and `width` tall.
    /// - Complexity: O(width × height).
    public func rotated90(clockwise: Bool) -> Self {
        precondition(hasConsistentStorage, "pixel count must match the image size")
        let channels = Self.channelCount
        let newWidth = height
        let newHeight = width
        var output = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                for y in 0..<newHeight {
                    for x in 0..<newWidth {
                        let sourceX = clockwise ? y : width - 1 - y
                        let sourceY = clockwise ? height - 1 - x : x
                        let from = (sourceY * width + sourceX) * channels
                        let to = (y * newWidth + x) * channels
                        for c in 0..<channels { destination[to + c] = source[from + c] }
                    }
                }
            }
        }
        return Self(width: newWidth, height: newHeight, pixels: output)
    }

    /// The image turned by a half turn: the output pixel (x, y) is the source pixel
    /// (width − 1 − x, height − 1 − y).
    ///
    /// - Returns: the rotated image, same size.
    /// - Complexity: O(width × height).
    public func rotated180() -> Self {
        precondition(hasConsistentStorage, "pixel count must match the image size")
        let channels = Self.channelCount
        let pixelCount = width * height
        var output = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                for i in 0..<pixelCount {
                    let from = (pixelCount - 1 - i) * channels
                    for c in 0..<channels { destination[i * channels + c] = source[from + c] }
                }
            }
        }
        return Self(width: width, height: height, pixels: output)
    }

    /// A rectangular part of the image.
    ///
    /// - Parameters:
    ///   - x: left column of the part.
    ///   - y: top row of the part.
    ///   - width: width of the part.
    ///   - height: height of the part.
    /// - Returns: the part, `width` × `height`. The rectangle must lie inside the image (a zero
    ///   side gives an empty image).
    /// - Complexity: O(width × height of the part).
    public func cropped(x: Int, y: Int, width cropWidth: Int, height cropHeight: Int) -> Self {
        precondition(
            x >= 0 && y >= 0 && cropWidth >= 0 && cropHeight >= 0 && x <= width - cropWidth
                && y <= height - cropHeight,
            "crop rectangle must lie inside the image")
        let channels = Self.channelCount
        var output = [UInt8]()
        output.reserveCapacity(cropWidth * cropHeight * channels)
        for row in y..<(y + cropHeight) {
            let start = (row * width + x) * channels
            output.append(contentsOf: pixels[start..<(start + cropWidth * channels)])
        }
        return Self(width: cropWidth, height: cropHeight, pixels: output)
    }
}
