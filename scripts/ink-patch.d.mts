import type { Plugin as EsbuildPlugin } from "esbuild";

export declare const INK_LOG_UPDATE: RegExp;
export declare function patchInkLogUpdate(source: string, file?: string): string;
export declare function inkPatchEsbuild(): EsbuildPlugin;
export declare function inkPatchVite(): {
    name: string;
    enforce: "pre";
    load(id: string): { code: string; map: null } | null;
};
