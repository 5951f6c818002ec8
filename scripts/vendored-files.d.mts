import type { Plugin as EsbuildPlugin } from "esbuild";

export interface VendoredFile {
    name: string;
    version: string;
    /** The file's path inside its package, e.g. "build/tokenize.js". */
    file: string;
    /** The copy's absolute path under vendor/. */
    copy: string;
}
export declare function vendoredFiles(): VendoredFile[];
export declare function vendoredCopyOf(
    path: string,
    files?: VendoredFile[]
): VendoredFile | undefined;
export declare function vendoredFilesEsbuild(): EsbuildPlugin;
export declare function vendoredFilesVite(): {
    name: string;
    enforce: "pre";
    load(id: string): { code: string; map: null } | null;
};
