#if canImport(SwiftUI) && canImport(ARKit)
import MultiSetSampleKit
#endif
