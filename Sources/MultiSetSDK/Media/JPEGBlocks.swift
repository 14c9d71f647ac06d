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

    /// Calls `body(tableClass, symbol)` for every Huffman symbol in scan order (classes: 0 luma DC,
    /// 1 luma AC, 2 chroma DC, 3 chroma AC).
    func forEachSymbol(restartInterval: Int, _ body: (Int, UInt8) -> Void) {
        walk(restartInterval: restartInterval) { table, symbol, _, _ in body(table, symbol) }
    }

    /// Writes the entropy-coded segment, with an RSTn marker every `restartInterval` MCUs (0: none).
    func encode(tables: [JPEGHuffmanTable], restartInterval: Int, into writer: inout JPEGBitWriter) {
        var marker: UInt8 = 0
        walk(restartInterval: restartInterval) { table, symbol, extra, extraLength in
            let t = tables[table]
            writer.write(UInt32(t.codes[Int(symbol)]), length: Int(t.lengths[Int(symbol)]))
            writer.write(UInt32(truncatingIfNeeded: extra), length: extraLength)
        } restart: {
            writer.restart(marker: 0xD0 + marker)
            marker = (marker + 1) % 8
        }
    }

    /// Runs the coding model: DC differences per component, AC run/size symbols with ZRL and EOB;
    /// `emit(tableClass, symbol, extraBits, extraLength)`; `restart()` between restart intervals, where
    /// the DC predictions start again from zero (T.81 §F.1.1.5.1).
    private func walk(
        restartInterval: Int = 0, _ emit: (Int, UInt8, Int, Int) -> Void, restart: () -> Void = {}
    ) {
        var previousDC = [0, 0, 0]
        coefficients.withUnsafeBufferPointer { c in
            var slot = 0
            for mcu in 0..<mcuCount {
                if restartInterval > 0, mcu > 0, mcu % restartInterval == 0 {
                    restart()
                    previousDC = [0, 0, 0]
                }
                for component in layout {
                    let base = slot * 64
                    let dcTable = component == 0 ? 0 : 2
                    let acTable = dcTable + 1
                    let dc = Int(c[base])
                    let diff = dc - previousDC[component]
                    previousDC[component] = dc
                    let size = Self.category(diff)
                    emit(dcTable, UInt8(size), diff < 0 ? diff - 1 : diff, size)
                    var run = 0
                    for k in 1..<64 {
                        let v = Int(c[base + k])
                        if v == 0 {
                            run += 1
                            continue
                        }
                        while run > 15 {
                            emit(acTable, 0xF0, 0, 0)
                            run -= 16
                        }
                        let s = Self.category(v)
                        emit(acTable, UInt8(run << 4 | s), v < 0 ? v - 1 : v, s)
                        run = 0
                    }
                    if run > 0 { emit(acTable, 0x00, 0, 0) }
                    slot += 1
                }
            }
        }
    }
}
