import type { Plugin as EsbuildPlugin } from "esbuild";

export declare const INK_LOG_UPDATE: RegExp;
export declare function patchInkLogUpdate(source: string, file?: string): string;
export declare function inkPatchEsbuild(): EsbuildPlugin;
export declare const INK_MEASURE_TEXT: RegExp;
export declare const INK_TEXT_SIZES_KEPT: number;
export declare function patchInkMeasureText(source: string, file?: string): string;
export declare function inkTextCachePatchEsbuild(): EsbuildPlugin;
export declare function inkPatchVite(): {
    name: string;
    enforce: "pre";
    load(id: string): { code: string; map: null } | null;
};
