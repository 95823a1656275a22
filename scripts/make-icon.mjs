// The app icon for packaging: electron-builder takes a 1024-pixel PNG from its build resources folder and
// makes each platform's format from it. The drawing itself is assets/icon.svg (also the page's favicon).
import { mkdirSync } from 'node:fs';
import sharp from 'sharp';

mkdirSync('assets/build', { recursive: true });
await sharp('assets/icon.svg', { density: 300 }).resize(1024, 1024).png().toFile('assets/build/icon.png');
console.log('assets/build/icon.png written from assets/icon.svg');
