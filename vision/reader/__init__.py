"""Card reader: exported index detector + index classifier + grouping -> CardDetections.

Runs without torch (OpenVINO, ONNX Runtime as fallback). Import `CardReader` from
`vision.reader.reader`; heavy runtimes load inside `CardReader.load`.
"""
