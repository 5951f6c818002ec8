/**
 * How the chat asks Ink to render. Ink throttles frames (30 fps by default)
 * with a leading and trailing edge: a key typed inside the window of a stream
 * frame waited for the next frame (44 ms median while an answer streamed).
 * With the throttle off every React commit is drawn at once, so a key's echo
 * costs only its own frame; the transcript store paces what the engine sends
 * instead (CHAT_STREAM_FLUSH_MS, CHAT_FRAME_MS in transcript/store.ts).
 */
export const CHAT_RENDER_OPTIONS = {
    exitOnCtrlC: false,
    patchConsole: false,
    incrementalRendering: true,
    maxFps: 0,
} as const;
