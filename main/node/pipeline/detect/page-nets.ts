// The page-analysis networks of this installation (assets/models/page-analysis), loaded once per process on
// first use and shared by every document: they are part of the product, not of the reading model a user picks.
import { loadAddon, pageAnalysisDir, type NativePageAnalysis } from '../../engine/native-addon';

let loading: Promise<NativePageAnalysis> | null = null;

export function pageNets(): Promise<NativePageAnalysis> {
  loading ??= loadAddon().loadPageAnalysis(pageAnalysisDir(), { backend: 'cpu' }).catch((err: Error) => {
    loading = null;
    throw new Error(`the page-analysis networks did not load: ${err.message}`);
  });
  return loading;
}
