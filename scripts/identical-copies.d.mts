import type { Plugin as EsbuildPlugin } from "esbuild";

export declare function identicalCopiesEsbuild(
    names: string[],
    nodeModules?: string
): EsbuildPlugin;
