import type { Plugin as EsbuildPlugin } from "esbuild";

export declare const ANSI_TOKENIZE_STYLED_CHARS: RegExp;
export declare function patchStyledCharsToString(source: string, file?: string): string;
export declare function ansiTokenizePatchEsbuild(): EsbuildPlugin;
