// onnxruntime-node for the bench's side-by-side measures: optional, so a machine without it still benches.
export type Ort = typeof import('onnxruntime-node');

/** onnxruntime-node, or null where it is not installed. */
export async function loadOnnxruntime(): Promise<Ort | null> {
  try {
    return await import('onnxruntime-node');
  } catch {
    return null;
  }
}
