// How far one step zooms the page: the + and − buttons and Ctrl+= / Ctrl+- alike, and a notch of Ctrl+wheel.
export const ZOOM_STEP = 1.25;
export const WHEEL_STEP = 1.1;
