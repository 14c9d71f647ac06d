/// The quantized coefficients of every block in scan order (MCU by MCU: the luma blocks of the MCU
/// left to right, top to bottom, then Cb, then Cr), in zigzag order, and their entropy coding
/// (ITU-T T.81 §F.1.2).
struct JPEGBlocks {
    /// 64 coefficients a block, zigzag order.
    private var coefficients: [Int16]
    /// Component of each block slot within an MCU: 0 = Y, 1 = Cb, 2 = Cr.
    private let layout: [Int]
    private let mcuCount: Int

    init(planes: YCbCrPlanes, halvedChroma: Bool, lumaQuant: [Int], chromaQuant: [Int]) {
        let mcu = halvedChroma ? 16 : 8
        let mcusX = planes.lumaWidth / mcu, mcusY = planes.lumaHeight / mcu
        let layout = halvedChroma ? [0, 0, 0, 0, 1, 2] : [0, 1, 2]
        let mcuCount = mcusX * mcusY
        self.layout = layout
        self.mcuCount = mcuCount
        var coefficients = [Int16](repeating: 0, count: mcuCount * layout.count * 64)
        let dct = ForwardDCT()
        func reciprocals(_ q: [Int]) -> [SIMD8<Float>] {
            (0..<8).map { v in SIMD8<Float>((0..<8).map { 1 / Float(q[v * 8 + $0]) }) }
        }
        let lumaR = reciprocals(lumaQuant), chromaR = reciprocals(chromaQuant)
        var block = [Float](repeating: 0, count: 64)
        var natural = [Int32](repeating: 0, count: 64)
        let zigzag = JPEGTables.zigzag
        var slot = 0
        coefficients.withUnsafeMutableBufferPointer { out in
            for my in 0..<mcusY {
                for mx in 0..<mcusX {
                    for (index, component) in layout.enumerated() {
                        let plane: [Float]
                        let stride: Int
                        var x0 = 0, y0 = 0
                        if component == 0 {
                            plane = planes.y
                            stride = planes.lumaWidth
                            let sub = halvedChroma ? index : 0
                            x0 = mx * mcu + (sub % 2) * 8
                            y0 = my * mcu + (sub / 2) * 8
                        } else {
                            plane = component == 1 ? planes.cb : planes.cr
                            stride = planes.chromaWidth
                            x0 = mx * 8
                            y0 = my * 8
                        }
                        plane.withUnsafeBufferPointer { p in
                            for row in 0..<8 {
                                for col in 0..<8 { block[row * 8 + col] = p[(y0 + row) * stride + x0 + col] }
                            }
                        }
                        let r = component == 0 ? lumaR : chromaR
                        block.withUnsafeBufferPointer { b in
                            r.withUnsafeBufferPointer { rp in
                                natural.withUnsafeMutableBufferPointer { n in
                                    dct.transform(b.baseAddress!, reciprocals: rp.baseAddress!, into: n.baseAddress!)
                                }
                            }
                        }
                        let o = slot * 64
                        for k in 0..<64 { out[o + k] = Int16(clamping: natural[zigzag[k]]) }
                        slot += 1
                    }
                }
            }
        }
        self.coefficients = coefficients
    }

    /// Bits needed for the magnitude of `value` (T.81 Table F.1's SSSS).
    @inline(__always)
    static func category(_ value: Int) -> Int {
        let m = value < 0 ? -value : value
        return m == 0 ? 0 : Int.bitWidth - m.leadingZeroBitCount
    }

    /// Symbol counts per table class (classes: 0 luma DC, 1 luma AC, 2 chroma DC, 3 chroma AC), 256 each.
    func symbolFrequencies(restartInterval: Int) -> [[Int]] {
        var counter = FrequencyCounter()
        walk(restartInterval: restartInterval, into: &counter)
        return (0..<4).map { Array(counter.counts[($0 * 256)..<($0 * 256 + 256)]) }
    }

    /// Writes the entropy-coded segment, with an RSTn marker every `restartInterval` MCUs (0: none).
    func encode(tables: [JPEGHuffmanTable], restartInterval: Int, into writer: inout JPEGBitWriter) {
        var sink = HuffmanSink(tables: tables, writer: writer)
        walk(restartInterval: restartInterval, into: &sink)
        writer = sink.writer
    }

    /// Runs the coding model into `sink`: DC differences per component, AC run/size symbols with ZRL
    /// and EOB, restarts between intervals, where the DC predictions start again from zero
    /// (T.81 §F.1.1.5.1).
    private func walk<Sink: JPEGSymbolSink>(restartInterval: Int, into sink: inout Sink) {
        var previousDC = (0, 0, 0)
        coefficients.withUnsafeBufferPointer { c in
            layout.withUnsafeBufferPointer { layout in
                var slot = 0
                for mcu in 0..<mcuCount {
                    if restartInterval > 0, mcu > 0, mcu % restartInterval == 0 {
                        sink.restart()
                        previousDC = (0, 0, 0)
                    }
                    for component in layout {
                        let base = slot * 64
                        let dcTable = component == 0 ? 0 : 2
                        let acTable = dcTable + 1
                        let dc = Int(c[base])
                        let diff: Int
                        switch component {
                        case 0: (diff, previousDC.0) = (dc - previousDC.0, dc)
                        case 1: (diff, previousDC.1) = (dc - previousDC.1, dc)
                        default: (diff, previousDC.2) = (dc - previousDC.2, dc)
                        }
                        let size = Self.category(diff)
                        sink.emit(table: dcTable, symbol: size, extra: diff < 0 ? diff - 1 : diff, length: size)
                        var run = 0
                        for k in 1..<64 {
                            let v = Int(c[base + k])
                            if v == 0 {
                                run += 1
                                continue
                            }
                            while run > 15 {
                                sink.emit(table: acTable, symbol: 0xF0, extra: 0, length: 0)
                                run -= 16
                            }
                            let s = Self.category(v)
                            sink.emit(table: acTable, symbol: run << 4 | s, extra: v < 0 ? v - 1 : v, length: s)
                            run = 0
                        }
                        if run > 0 { sink.emit(table: acTable, symbol: 0x00, extra: 0, length: 0) }
                        slot += 1
                    }
                }
            }
        }
    }
}

/// Where the coding model's symbols go: counted (to build the tables), then written.
protocol JPEGSymbolSink {
    mutating func emit(table: Int, symbol: Int, extra: Int, length: Int)
    mutating func restart()
}

/// Counts symbols per table class.
struct FrequencyCounter: JPEGSymbolSink {
    var counts = [Int](repeating: 0, count: 4 * 256)

    @inline(__always)
    mutating func emit(table: Int, symbol: Int, extra: Int, length: Int) { counts[table << 8 | symbol] += 1 }

    mutating func restart() {}
}

/// Writes each symbol's code and extra bits; codes packed as `code << 8 | length` per table class.
struct HuffmanSink: JPEGSymbolSink {
    var writer: JPEGBitWriter
    private var packed: [UInt32]
    private var marker: UInt8 = 0

    init(tables: [JPEGHuffmanTable], writer: JPEGBitWriter) {
        self.writer = writer
        packed = [UInt32](repeating: 0, count: 4 * 256)
        for (t, table) in tables.enumerated() {
            for s in 0..<256 { packed[t << 8 | s] = UInt32(table.codes[s]) << 8 | UInt32(table.lengths[s]) }
        }
    }

    @inline(__always)
    mutating func emit(table: Int, symbol: Int, extra: Int, length: Int) {
        let p = packed[table << 8 | symbol]
        writer.write(p >> 8, length: Int(p & 0xFF))
        writer.write(UInt32(truncatingIfNeeded: extra), length: length)
    }

    mutating func restart() {
        writer.restart(marker: 0xD0 + marker)
        marker = (marker + 1) % 8
    }
}
