// sharp (libvips), the one way Saccade's Node code decodes and encodes images, with libvips' operation cache
// off: the cache keeps recent operations with their pixel buffers (a long document's every page raster and
// figure) well past its nominal limit, and a 32-page scan grew the CLI by 600 MB. Nothing here repeats an
// operation, so the cache saved no work.
import sharp from 'sharp';

sharp.cache(false);

export { sharp };
