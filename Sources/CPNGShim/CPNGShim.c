#include "CPNGShim.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// State shared with libpng's callbacks. It lives on the heap and is reached through a pointer that
// is never modified after setjmp, so its contents stay well defined after a longjmp.
typedef struct ShimState {
    char *message;
    size_t messageCapacity;
    // Reading.
    const uint8_t *input;
    size_t inputCount;
    size_t inputOffset;
    uint8_t *pixels;
    png_bytep *rows;
    // Writing.
    uint8_t *output;
    size_t outputCount;
    size_t outputCapacity;
} ShimState;

static void shim_set_message(ShimState *state, const char *text) {
    if (state == NULL || state->message == NULL || state->messageCapacity == 0) return;
    snprintf(state->message, state->messageCapacity, "%s", text != NULL ? text : "unknown libpng error");
}

static void shim_error(png_structp png, png_const_charp text) {
    shim_set_message((ShimState *)png_get_error_ptr(png), text);
    png_longjmp(png, 1);
}

static void shim_warning(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;  // Warnings (for example an unknown ancillary chunk) do not stop decoding.
}

static void shim_read(png_structp png, png_bytep data, size_t length) {
    ShimState *state = (ShimState *)png_get_io_ptr(png);
    if (length > state->inputCount - state->inputOffset) png_error(png, "unexpected end of PNG data");
    memcpy(data, state->input + state->inputOffset, length);
    state->inputOffset += length;
}

static void shim_write(png_structp png, png_bytep data, size_t length) {
    ShimState *state = (ShimState *)png_get_io_ptr(png);
    if (length > SIZE_MAX - state->outputCount) png_error(png, "PNG output too large");
    size_t needed = state->outputCount + length;
    if (needed > state->outputCapacity) {
        size_t capacity = state->outputCapacity > 0 ? state->outputCapacity : 4096;
        while (capacity < needed) capacity = capacity > SIZE_MAX / 2 ? needed : capacity * 2;
        uint8_t *grown = (uint8_t *)realloc(state->output, capacity);
        if (grown == NULL) png_error(png, "out of memory");
        state->output = grown;
        state->outputCapacity = capacity;
    }
    memcpy(state->output + state->outputCount, data, length);
    state->outputCount = needed;
}

static void shim_flush(png_structp png) { (void)png; }

static ShimState *shim_state_new(char *message, size_t messageCapacity) {
    ShimState *state = (ShimState *)calloc(1, sizeof(ShimState));
    if (state == NULL) return NULL;
    state->message = message;
    state->messageCapacity = messageCapacity;
    if (message != NULL && messageCapacity > 0) message[0] = '\0';
    return state;
}

int cpngshim_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels, int compressionLevel,
                    uint8_t **outBytes, size_t *outCount, char *message, size_t messageCapacity) {
    if (outBytes != NULL) *outBytes = NULL;
    if (outCount != NULL) *outCount = 0;
    if (pixels == NULL || outBytes == NULL || outCount == NULL || width == 0 || height == 0 ||
        width > PNG_UINT_31_MAX || height > PNG_UINT_31_MAX || (channels != 1 && channels != 3) ||
        compressionLevel < 0 || compressionLevel > 9) {
        return CPNGSHIM_INVALID_ARGUMENT;
    }
    // volatile: the pointer is read after a longjmp back into this function.
    ShimState *volatile state = shim_state_new(message, messageCapacity);
    if (state == NULL) return CPNGSHIM_LIBRARY_ERROR;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, state, shim_error, shim_warning);
    png_infop info = png != NULL ? png_create_info_struct(png) : NULL;
    if (png == NULL || info == NULL) {
        shim_set_message(state, "cannot create the libpng write structures");
        png_destroy_write_struct(&png, NULL);
        free(state);
        return CPNGSHIM_LIBRARY_ERROR;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(state->output);
        free(state);
        return CPNGSHIM_LIBRARY_ERROR;
    }
    png_set_write_fn(png, state, shim_write, shim_flush);
    png_set_IHDR(png, info, width, height, 8, channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, compressionLevel);
    png_write_info(png, info);
    size_t stride = (size_t)width * (size_t)channels;
    for (uint32_t y = 0; y < height; y++) png_write_row(png, pixels + (size_t)y * stride);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    *outBytes = state->output;
    *outCount = state->outputCount;
    free(state);
    return CPNGSHIM_OK;
}

int cpngshim_decode(const uint8_t *data, size_t count, uint32_t maxSide, int headerOnly, uint8_t **outPixels,
                    uint32_t *outWidth, uint32_t *outHeight, int *outChannels, char *message,
                    size_t messageCapacity) {
    if (outPixels != NULL) *outPixels = NULL;
    if (outWidth != NULL) *outWidth = 0;
    if (outHeight != NULL) *outHeight = 0;
    if (outChannels != NULL) *outChannels = 0;
    if (data == NULL || outPixels == NULL || outWidth == NULL || outHeight == NULL || outChannels == NULL) {
        return CPNGSHIM_INVALID_ARGUMENT;
    }
    if (count < 8 || png_sig_cmp(data, 0, 8) != 0) return CPNGSHIM_NOT_PNG;
    // volatile: the pointer is read after a longjmp back into this function.
    ShimState *volatile state = shim_state_new(message, messageCapacity);
    if (state == NULL) return CPNGSHIM_LIBRARY_ERROR;
    state->input = data;
    state->inputCount = count;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, state, shim_error, shim_warning);
    png_infop info = png != NULL ? png_create_info_struct(png) : NULL;
    if (png == NULL || info == NULL) {
        shim_set_message(state, "cannot create the libpng read structures");
        png_destroy_read_struct(&png, NULL, NULL);
        free(state);
        return CPNGSHIM_LIBRARY_ERROR;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        free(state->pixels);
        free(state->rows);
        free(state);
        return CPNGSHIM_LIBRARY_ERROR;
    }
    png_set_read_fn(png, state, shim_read);
    // The caller's maxSide is the size limit; lift libpng's own default (1,000,000 pixels per side).
    png_set_user_limits(png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
    // Hostile files: at most 64 ancillary chunks kept and 256 KiB per ancillary chunk, and text,
    // colour-profile, palette-suggestion and Exif chunks skipped unread (their CRC is still checked),
    // so a file of a thousand compressed text chunks costs a pass over its bytes, not a thousand
    // decompressions. Unknown chunks are skipped too. Pixels need none of them.
    png_set_chunk_cache_max(png, 64);
    png_set_chunk_malloc_max(png, 256 * 1024);
    static const png_byte skipped[] = {'t', 'E', 'X', 't', 0, 'z', 'T', 'X', 't', 0, 'i', 'T', 'X', 't', 0,
                                       'i', 'C', 'C', 'P', 0, 's', 'P', 'L', 'T', 0, 'e', 'X', 'I', 'f', 0};
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, skipped, (int)(sizeof skipped / 5));
    png_read_info(png, info);
    uint32_t width = png_get_image_width(png, info);
    uint32_t height = png_get_image_height(png, info);
    *outWidth = width;
    *outHeight = height;
    int status = CPNGSHIM_OK;
    if (width > maxSide || height > maxSide) {
        status = CPNGSHIM_TOO_LARGE;
    } else if (!headerOnly) {
        int colorType = png_get_color_type(png, info);
        int bitDepth = png_get_bit_depth(png, info);
        if (colorType == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
        if (colorType == PNG_COLOR_TYPE_GRAY && bitDepth < 8) png_set_expand_gray_1_2_4_to_8(png);
        if (bitDepth == 16) png_set_scale_16(png);
        if ((colorType & PNG_COLOR_MASK_ALPHA) != 0) png_set_strip_alpha(png);
        png_set_interlace_handling(png);
        png_read_update_info(png, info);
        int channels = png_get_channels(png, info);
        size_t rowBytes = png_get_rowbytes(png, info);
        if (channels < 1 || channels > 4 || rowBytes != (size_t)width * (size_t)channels) {
            png_error(png, "unexpected pixel layout after conversion to 8 bits");
        }
        if (height > 0 && rowBytes > SIZE_MAX / height) png_error(png, "image too large for memory");
        state->pixels = (uint8_t *)malloc(rowBytes * height > 0 ? rowBytes * height : 1);
        state->rows = (png_bytep *)malloc(sizeof(png_bytep) * (height > 0 ? height : 1));
        if (state->pixels == NULL || state->rows == NULL) png_error(png, "out of memory");
        for (uint32_t y = 0; y < height; y++) state->rows[y] = state->pixels + (size_t)y * rowBytes;
        png_read_image(png, state->rows);
        png_read_end(png, NULL);
        *outChannels = channels;
        *outPixels = state->pixels;
        state->pixels = NULL;
    }
    png_destroy_read_struct(&png, &info, NULL);
    free(state->pixels);
    free(state->rows);
    free(state);
    return status;
}

void cpngshim_free(void *pointer) { free(pointer); }
