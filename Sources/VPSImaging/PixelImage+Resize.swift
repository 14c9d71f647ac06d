/// Resampling of gray and RGB images.
///
/// Coordinates follow the pixel-centre convention used throughout the project: (0, 0) is the
/// top-left corner of the top-left pixel and the centre of pixel (i, j) is (i + 0.5, j + 0.5). An
/// image of width W therefore spans [0, W) and resizing to width W' maps x to x · W' / W.
extension PixelImage {
    /// Resizes by area averaging: each output pixel is the mean of the source area it covers, with
    /// partially covered source pixels weighted by their covered fraction.
    ///
    /// This is the right filter for downscaling (it does not alias). For integer factors it is an
    /// exact box filter: halving gives the rounded mean of each 2 × 2 block. Upscaling with it
    /// behaves like nearest-neighbour with averaged seams; prefer `resizedBilinear` there.
    ///
    /// - Parameters:
    ///   - newWidth: output width, at least 1.
    ///   - newHeight: output height, at least 1.
    /// - Returns: the resized image (values rounded half up).
    /// - Complexity: O(width × height × channels + newWidth × newHeight × channels × taps), where
    ///   taps ≈ width / newWidth + 1 per axis; separable.
    public func resizedByArea(width newWidth: Int, height newHeight: Int) -> Self {
        precondition(newWidth > 0 && newHeight > 0, "resize target must have positive sides")
        precondition(!isEmpty, "cannot resize an empty image")
        precondition(hasConsistentStorage, "pixel count must match the image size")
        let channels = Self.channelCount
        let columns = AreaTaps(sourceLength: width, destinationLength: newWidth)
        let rows = AreaTaps(sourceLength: height, destinationLength: newHeight)
        // Horizontal pass: coverage-weighted sums (not yet normalized) for every source row.
        var horizontal = [Double](repeating: 0, count: height * newWidth * channels)
        pixels.withUnsafeBufferPointer { source in
            horizontal.withUnsafeMutableBufferPointer { sums in
                for y in 0..<height {
                    let sourceRow = y * width * channels
                    let sumRow = y * newWidth * channels
                    for x in 0..<newWidth {
                        let first = columns.first[x]
                        for tap in columns.range(of: x) {
                            let weight = columns.weights[tap]
                            let base = sourceRow + (first + tap - columns.offsets[x]) * channels
                            for c in 0..<channels {
                                sums[sumRow + x * channels + c] += weight * Double(source[base + c])
                            }
                        }
                    }
                }
            }
        }
        // Vertical pass and a single normalization, so integer factors stay exact.
        var output = [UInt8](repeating: 0, count: newWidth * newHeight * channels)
        let rowLength = newWidth * channels
        horizontal.withUnsafeBufferPointer { sums in
            output.withUnsafeMutableBufferPointer { destination in
                var accumulator = [Double](repeating: 0, count: rowLength)
                for y in 0..<newHeight {
                    for i in 0..<rowLength { accumulator[i] = 0 }
                    let first = rows.first[y]
                    for tap in rows.range(of: y) {
                        let weight = rows.weights[tap]
                        let base = (first + tap - rows.offsets[y]) * rowLength
                        for i in 0..<rowLength { accumulator[i] += weight * sums[base + i] }
                    }
                    let area = rows.totals[y]
                    for x in 0..<newWidth {
                        let normalizer = area * columns.totals[x]
                        for c in 0..<channels {
                            let i = x * channels + c
                            destination[y * rowLength + i] = roundedByte(accumulator[i] / normalizer)
                        }
                    }
                }
            }
        }
        return Self(width: newWidth, height: newHeight, pixels: output)
    }

    /// Resizes by bilinear interpolation at the output pixel centres (pixel-centre convention);
    /// samples beyond the outermost source pixel centres take the edge value.
    ///
    /// Suited to upscaling and to mild downscaling (factors below about 2); larger reductions alias,
    /// use `resizedByArea` for them. A linear ramp stays linear (up to rounding).
    ///
    /// - Parameters:
    ///   - newWidth: output width, at least 1.
    ///   - newHeight: output height, at least 1.
    /// - Returns: the resized image (values rounded half up).
    /// - Complexity: O(newWidth × newHeight × channels).
    public func resizedBilinear(width newWidth: Int, height newHeight: Int) -> Self {
        precondition(newWidth > 0 && newHeight > 0, "resize target must have positive sides")
        precondition(!isEmpty, "cannot resize an empty image")
        precondition(hasConsistentStorage, "pixel count must match the image size")
        let channels = Self.channelCount
        let columns = LinearTaps(sourceLength: width, destinationLength: newWidth)
        let rows = LinearTaps(sourceLength: height, destinationLength: newHeight)
        var output = [UInt8](repeating: 0, count: newWidth * newHeight * channels)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                for y in 0..<newHeight {
                    let row0 = rows.lower[y] * width * channels
                    let row1 = rows.upper[y] * width * channels
                    let fy = rows.fraction[y]
                    for x in 0..<newWidth {
                        let column0 = columns.lower[x] * channels
                        let column1 = columns.upper[x] * channels
                        let fx = columns.fraction[x]
                        for c in 0..<channels {
                            let top =
                                Double(source[row0 + column0 + c]) * (1 - fx) + Double(source[row0 + column1 + c]) * fx
                            let bottom =
                                Double(source[row1 + column0 + c]) * (1 - fx) + Double(source[row1 + column1 + c]) * fx
                            destination[(y * newWidth + x) * channels + c] = roundedByte(top * (1 - fy) + bottom * fy)
                        }
                    }
                }
            }
        }
        return Self(width: newWidth, height: newHeight, pixels: output)
    }
}

/// A value rounded half up and clamped to 0...255.
@inline(__always) func roundedByte(_ value: Double) -> UInt8 {
    let rounded = (value + 0.5).rounded(.down)
    if !(rounded > 0) { return 0 }
    return rounded >= 255 ? 255 : UInt8(rounded)
}

/// Per-output-sample source spans and coverage weights of area averaging along one axis.
struct AreaTaps {
    /// First source index covered by each output sample.
    var first: [Int]
    /// Start of each output sample's weights in `weights`.
    var offsets: [Int]
    /// Coverage (in source pixels) of consecutive source samples, for all output samples.
    var weights: [Double]
    /// Total coverage of each output sample (the scale factor, up to rounding).
    var totals: [Double]

    init(sourceLength: Int, destinationLength: Int) {
        first = []
        offsets = []
        weights = []
        totals = []
        first.reserveCapacity(destinationLength)
        offsets.reserveCapacity(destinationLength + 1)
        totals.reserveCapacity(destinationLength)
        let source = Double(sourceLength)
        let destination = Double(destinationLength)
        for index in 0..<destinationLength {
            // Exact for integer factors: index · source / destination is then an integer.
            let start = Double(index) * source / destination
            let end = Double(index + 1) * source / destination
            let lowest = min(Int(start.rounded(.down)), sourceLength - 1)
            let highest = max(lowest, min(Int(end.rounded(.up)) - 1, sourceLength - 1))
            first.append(lowest)
            offsets.append(weights.count)
            var total = 0.0
            for sample in lowest...highest {
                let covered = max(0, min(Double(sample + 1), end) - max(Double(sample), start))
                weights.append(covered)
                total += covered
            }
            totals.append(total)
        }
        offsets.append(weights.count)
    }

    /// Indices into `weights` of output sample `index`.
    @inline(__always) func range(of index: Int) -> Range<Int> { offsets[index]..<offsets[index + 1] }
}

/// Per-output-sample neighbours and interpolation fraction of bilinear resampling along one axis.
struct LinearTaps {
    /// Source index at or before the sample position (clamped to the image).
    var lower: [Int]
    /// The next source index (equal to `lower` at the edges).
    var upper: [Int]
    /// Weight of `upper`.
    var fraction: [Double]

    init(sourceLength: Int, destinationLength: Int) {
        lower = []
        upper = []
        fraction = []
        let scale = Double(sourceLength) / Double(destinationLength)
        for index in 0..<destinationLength {
            let position = min(max((Double(index) + 0.5) * scale - 0.5, 0), Double(sourceLength - 1))
            let below = min(Int(position.rounded(.down)), sourceLength - 1)
            lower.append(below)
            upper.append(min(below + 1, sourceLength - 1))
            fraction.append(position - Double(below))
        }
    }
}
