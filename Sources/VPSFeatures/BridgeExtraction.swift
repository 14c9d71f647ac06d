import CVBridge
import VPSImaging

/// Calls a CVBridge extractor and turns its result handle or error into Swift values.
enum BridgeExtraction {
    /// A bridge call: (pixels, width, height, out handle, error) -> status; stride is the width.
    typealias Call = (
        UnsafePointer<UInt8>?, Int32, Int32, UnsafeMutablePointer<OpaquePointer?>, UnsafeMutablePointer<cvb_error>
    ) -> cvb_status

    /// Runs `call` on `image` and copies the result into a `FeatureSet` tagged with `config`.
    static func run(image: GrayImage, config: FeatureConfig, _ call: Call) throws(FeaturesError) -> FeatureSet {
        guard let width = Int32(exactly: image.width), let height = Int32(exactly: image.height) else {
            throw .invalidImage("image of \(image.width)×\(image.height) pixels exceeds the bridge's 32-bit size")
        }
        var handle: OpaquePointer?
        var error = cvb_error()
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            call(pixels.baseAddress, width, height, &handle, &error)
        }
        defer { cvb_features_free(handle) }
        if status != CVB_OK { throw featuresError(status: status, error: error) }
        guard let handle else { throw .bridge("extraction succeeded without a result") }
        return try featureSet(from: handle, config: config)
    }

    /// Copies keypoints (shifted to the `Camera` convention) and descriptors out of a result.
    static func featureSet(from handle: OpaquePointer, config: FeatureConfig) throws(FeaturesError) -> FeatureSet {
        let count = Int(cvb_features_count(handle))
        guard count > 0, let keypointPointer = cvb_features_keypoints(handle),
            let descriptorPointer = cvb_features_descriptors(handle)
        else { return FeatureSet(emptyFor: config) }
        let bytesPerDescriptor = Int(cvb_features_descriptor_bytes(handle))
        let keypoints = UnsafeBufferPointer(start: keypointPointer, count: count).map { k in
            // OpenCV: (0, 0) is the centre of the top-left pixel; Camera: its top-left corner.
            Keypoint(
                x: k.x + 0.5, y: k.y + 0.5, size: k.size, angle: k.angle, response: k.response, octave: k.octave)
        }
        let source = UnsafeRawBufferPointer(start: descriptorPointer, count: count * bytesPerDescriptor)
        let kind = cvb_features_descriptor_kind(handle)
        switch config.descriptorKind {
        case .binary256:
            guard kind == CVB_DESCRIPTOR_BINARY256, bytesPerDescriptor == BinaryDescriptors.bytesPerDescriptor else {
                throw .bridge("unexpected descriptor layout for \(config.identifier)")
            }
            let words = [UInt64](unsafeUninitializedCapacity: count * BinaryDescriptors.wordsPerDescriptor) {
                buffer, initialized in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: source)
                for i in 0..<buffer.count { buffer[i] = UInt64(littleEndian: buffer[i]) }
                initialized = buffer.count
            }
            return FeatureSet(
                config: config, keypoints: keypoints, descriptors: .binary(BinaryDescriptors(words: words)))
        case .float128:
            let dimension = FloatDescriptors.siftDimension
            guard kind == CVB_DESCRIPTOR_FLOAT128, bytesPerDescriptor == dimension * MemoryLayout<Float>.size else {
                throw .bridge("unexpected descriptor layout for \(config.identifier)")
            }
            let values = [Float](unsafeUninitializedCapacity: count * dimension) { buffer, initialized in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: source)
                initialized = buffer.count
            }
            return FeatureSet(
                config: config, keypoints: keypoints,
                descriptors: .float(FloatDescriptors(values: values, dimension: dimension)))
        }
    }

    /// The Swift error for a failed bridge call.
    static func featuresError(status: cvb_status, error: cvb_error) -> FeaturesError {
        let message = withUnsafeBytes(of: error.message) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        switch status {
        case CVB_ERROR_INVALID_IMAGE: return .invalidImage(message)
        case CVB_ERROR_INVALID_PARAMETER: return .invalidParameter(message)
        case CVB_ERROR_OPENCV: return .openCV(message)
        case CVB_ERROR_OUT_OF_MEMORY: return .outOfMemory
        default: return .bridge(message.isEmpty ? "status \(status.rawValue)" : message)
        }
    }
}
