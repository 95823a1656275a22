// How much a page is scaled to be worked on: pages over the pixel limit are drawn smaller, to fit it. Shared by
// image pages and the PDF worker thread (which loads nothing of the image codec).
export function fitScale(width: number, height: number, maxPixels: number): number {
  const px = width * height;
  return px > maxPixels ? Math.sqrt(maxPixels / px) : 1;
}
