// mpsgen's stand-in for Apple's Metal framework (see Foundation/Foundation.h for what a stub declares).
#pragma once
#include <Foundation/Foundation.h>
#include <simd/simd.h>

typedef struct {
  NSUInteger width, height, depth;
} MTLSize;
typedef struct {
  NSUInteger x, y, z;
} MTLOrigin;
typedef struct {
  MTLOrigin origin;
  MTLSize size;
} MTLRegion;
NS_INLINE MTLSize MTLSizeMake(NSUInteger width, NSUInteger height, NSUInteger depth) {
  MTLSize s = {width, height, depth};
  return s;
}
NS_INLINE MTLOrigin MTLOriginMake(NSUInteger x, NSUInteger y, NSUInteger z) {
  MTLOrigin o = {x, y, z};
  return o;
}
NS_INLINE MTLRegion MTLRegionMake1D(NSUInteger x, NSUInteger width) {
  MTLRegion r = {{x, 0, 0}, {width, 1, 1}};
  return r;
}
typedef struct {
  uint64_t _impl;
} MTLResourceID;

typedef NS_ENUM(NSUInteger, MTLCPUCacheMode){MTLCPUCacheModeDefaultCache = 0, MTLCPUCacheModeWriteCombined = 1};
typedef NS_ENUM(NSUInteger, MTLStorageMode){MTLStorageModeShared = 0, MTLStorageModeManaged = 1,
                                            MTLStorageModePrivate = 2, MTLStorageModeMemoryless = 3};
typedef NS_ENUM(NSUInteger, MTLHazardTrackingMode){MTLHazardTrackingModeDefault = 0, MTLHazardTrackingModeUntracked = 1,
                                                   MTLHazardTrackingModeTracked = 2};
#define MTLResourceCPUCacheModeShift 0
#define MTLResourceStorageModeShift 4
#define MTLResourceHazardTrackingModeShift 8
typedef NS_OPTIONS(NSUInteger, MTLResourceOptions){
    MTLResourceCPUCacheModeDefaultCache = MTLCPUCacheModeDefaultCache << MTLResourceCPUCacheModeShift,
    MTLResourceCPUCacheModeWriteCombined = MTLCPUCacheModeWriteCombined << MTLResourceCPUCacheModeShift,
    MTLResourceStorageModeShared = MTLStorageModeShared << MTLResourceStorageModeShift,
    MTLResourceStorageModeManaged = MTLStorageModeManaged << MTLResourceStorageModeShift,
    MTLResourceStorageModePrivate = MTLStorageModePrivate << MTLResourceStorageModeShift,
    MTLResourceStorageModeMemoryless = MTLStorageModeMemoryless << MTLResourceStorageModeShift,
    MTLResourceHazardTrackingModeDefault = MTLHazardTrackingModeDefault << MTLResourceHazardTrackingModeShift,
    MTLResourceHazardTrackingModeUntracked = MTLHazardTrackingModeUntracked << MTLResourceHazardTrackingModeShift,
    MTLResourceHazardTrackingModeTracked = MTLHazardTrackingModeTracked << MTLResourceHazardTrackingModeShift,
    MTLResourceOptionCPUCacheModeDefault = MTLResourceCPUCacheModeDefaultCache,
};
typedef NS_OPTIONS(NSUInteger, MTLResourceUsage){MTLResourceUsageRead = 1 << 0, MTLResourceUsageWrite = 1 << 1};
typedef NS_ENUM(NSUInteger, MTLPurgeableState){MTLPurgeableStateKeepCurrent = 1, MTLPurgeableStateNonVolatile = 2,
                                               MTLPurgeableStateVolatile = 3, MTLPurgeableStateEmpty = 4};
typedef NS_ENUM(NSInteger, MTLHeapType){MTLHeapTypeAutomatic = 0, MTLHeapTypePlacement = 1, MTLHeapTypeSparse = 2};
typedef NS_ENUM(NSUInteger, MTLCommandBufferStatus){
    MTLCommandBufferStatusNotEnqueued = 0, MTLCommandBufferStatusEnqueued = 1, MTLCommandBufferStatusCommitted = 2,
    MTLCommandBufferStatusScheduled = 3,   MTLCommandBufferStatusCompleted = 4, MTLCommandBufferStatusError = 5};
typedef NS_ENUM(NSUInteger, MTLDispatchType){MTLDispatchTypeSerial, MTLDispatchTypeConcurrent};
typedef NS_ENUM(NSUInteger, MTLLanguageVersion){
    MTLLanguageVersion2_0 = (2 << 16), MTLLanguageVersion2_1 = (2 << 16) + 1, MTLLanguageVersion2_2 = (2 << 16) + 2,
    MTLLanguageVersion2_3 = (2 << 16) + 3, MTLLanguageVersion2_4 = (2 << 16) + 4, MTLLanguageVersion3_0 = (3 << 16),
    MTLLanguageVersion3_1 = (3 << 16) + 1, MTLLanguageVersion3_2 = (3 << 16) + 2, MTLLanguageVersion4_0 = (4 << 16)};
typedef NS_ENUM(NSInteger, MTLMathMode){MTLMathModeSafe = 0, MTLMathModeRelaxed = 1, MTLMathModeFast = 2};
typedef NS_ENUM(NSInteger, MTLMathFloatingPointFunctions){MTLMathFloatingPointFunctionsFast = 0,
                                                          MTLMathFloatingPointFunctionsPrecise = 1};
typedef NS_ENUM(NSInteger, MTLLibraryType){MTLLibraryTypeExecutable = 0, MTLLibraryTypeDynamic = 1};
typedef NS_ENUM(NSUInteger, MTLDataType){MTLDataTypeNone = 0, MTLDataTypeStruct = 1, MTLDataTypeArray = 2,
                                         MTLDataTypeFloat = 3, MTLDataTypeInt = 29, MTLDataTypeUInt = 33,
                                         MTLDataTypeBool = 53};
typedef NS_ENUM(NSUInteger, MTLFunctionType){MTLFunctionTypeVertex = 1, MTLFunctionTypeFragment = 2,
                                             MTLFunctionTypeKernel = 3};
typedef NS_ENUM(NSInteger, MTLCaptureDestination){MTLCaptureDestinationDeveloperTools = 1,
                                                  MTLCaptureDestinationGPUTraceDocument = 2};
typedef NS_OPTIONS(NSUInteger, MTLBarrierScope){MTLBarrierScopeBuffers = 1 << 0, MTLBarrierScopeTextures = 1 << 1};
typedef NS_ENUM(NSUInteger, MTLGPUFamily){MTLGPUFamilyApple7 = 1007, MTLGPUFamilyApple8 = 1008,
                                          MTLGPUFamilyApple9 = 1009, MTLGPUFamilyMac2 = 2002,
                                          MTLGPUFamilyMetal3 = 5001};

@protocol MTLDevice, MTLCommandQueue, MTLCommandBuffer, MTLBuffer, MTLLibrary, MTLFunction, MTLHeap, MTLSharedEvent,
    MTLComputePipelineState, MTLComputeCommandEncoder, MTLBlitCommandEncoder, MTLArgumentEncoder, MTLEvent;
@class MTLCompileOptions, MTLHeapDescriptor, MTLComputePipelineDescriptor, MTLFunctionConstantValues,
    MTLCaptureDescriptor, MTLSharedEventListener, MTLSharedEventHandle, MTLComputePipelineReflection,
    MTLCommandBufferDescriptor;

typedef void (^MTLCommandBufferHandler)(id<MTLCommandBuffer>);
typedef void (^MTLSharedEventNotificationBlock)(id<MTLSharedEvent>, uint64_t value);
typedef void (^MTLNewLibraryCompletionHandler)(id<MTLLibrary> library, NSError* error);

@protocol MTLResource <NSObject>
@property(nullable, copy, atomic) NSString* label;
@property(readonly) id<MTLDevice> device;
@property(readonly) MTLCPUCacheMode cpuCacheMode;
@property(readonly) MTLStorageMode storageMode;
@property(readonly) MTLHazardTrackingMode hazardTrackingMode;
@property(readonly) MTLResourceOptions resourceOptions;
- (MTLPurgeableState)setPurgeableState:(MTLPurgeableState)state;
@property(readonly) id<MTLHeap> heap;
@property(readonly) NSUInteger heapOffset;
@property(readonly) NSUInteger allocatedSize;
- (void)makeAliasable;
- (BOOL)isAliasable;
@end

@protocol MTLBuffer <MTLResource>
@property(readonly) NSUInteger length;
- (void*)contents NS_RETURNS_INNER_POINTER;
- (void)didModifyRange:(NSRange)range;
@property(readonly) uint64_t gpuAddress;
@end

@protocol MTLHeap <NSObject>
@property(nullable, copy, atomic) NSString* label;
@property(readonly) id<MTLDevice> device;
@property(readonly) MTLStorageMode storageMode;
@property(readonly) MTLCPUCacheMode cpuCacheMode;
@property(readonly) MTLHazardTrackingMode hazardTrackingMode;
@property(readonly) MTLResourceOptions resourceOptions;
@property(readonly) NSUInteger size;
@property(readonly) NSUInteger usedSize;
@property(readonly) NSUInteger currentAllocatedSize;
@property(readonly) MTLHeapType type;
- (NSUInteger)maxAvailableSizeWithAlignment:(NSUInteger)alignment;
- (nullable id<MTLBuffer>)newBufferWithLength:(NSUInteger)length options:(MTLResourceOptions)options;
- (MTLPurgeableState)setPurgeableState:(MTLPurgeableState)state;
@end

@interface MTLHeapDescriptor : NSObject <NSCopying>
@property(readwrite, nonatomic) NSUInteger size;
@property(readwrite, nonatomic) MTLStorageMode storageMode;
@property(readwrite, nonatomic) MTLCPUCacheMode cpuCacheMode;
@property(readwrite, nonatomic) MTLHazardTrackingMode hazardTrackingMode;
@property(readwrite, nonatomic) MTLResourceOptions resourceOptions;
@property(readwrite, nonatomic) MTLHeapType type;
@end

@protocol MTLFunction <NSObject>
@property(nullable, copy, atomic) NSString* label;
@property(readonly) id<MTLDevice> device;
@property(readonly) MTLFunctionType functionType;
@property(readonly) NSString* name;
- (id<MTLArgumentEncoder>)newArgumentEncoderWithBufferIndex:(NSUInteger)bufferIndex;
@end

@interface MTLFunctionConstantValues : NSObject <NSCopying>
- (void)setConstantValue:(const void*)value type:(MTLDataType)type atIndex:(NSUInteger)index;
- (void)setConstantValue:(const void*)value type:(MTLDataType)type withName:(NSString*)name;
@end

@protocol MTLLibrary <NSObject>
@property(nullable, copy, atomic) NSString* label;
@property(readonly) id<MTLDevice> device;
- (nullable id<MTLFunction>)newFunctionWithName:(NSString*)functionName;
- (nullable id<MTLFunction>)newFunctionWithName:(NSString*)name
                                 constantValues:(MTLFunctionConstantValues*)constantValues
                                          error:(NSError**)error;
@property(readonly) NSArray<NSString*>* functionNames;
@property(readonly) MTLLibraryType type;
@end

@interface MTLCompileOptions : NSObject <NSCopying>
@property(readwrite, nonatomic) BOOL fastMathEnabled;
@property(readwrite, nonatomic) MTLMathMode mathMode;
@property(readwrite, nonatomic) MTLMathFloatingPointFunctions mathFloatingPointFunctions;
@property(readwrite, nonatomic) MTLLanguageVersion languageVersion;
@property(readwrite, nonatomic) BOOL preserveInvariance;
@property(nullable, readwrite, copy, nonatomic) NSDictionary<NSString*, NSObject*>* preprocessorMacros;
@property(readwrite, nonatomic) MTLLibraryType libraryType;
@end

@protocol MTLComputePipelineState <NSObject>
@property(nullable, readonly) NSString* label;
@property(readonly) id<MTLDevice> device;
@property(readonly) NSUInteger maxTotalThreadsPerThreadgroup;
@property(readonly) NSUInteger threadExecutionWidth;
@property(readonly) NSUInteger staticThreadgroupMemoryLength;
@property(readonly) MTLResourceID gpuResourceID;
@end

@interface MTLComputePipelineDescriptor : NSObject <NSCopying>
@property(nullable, copy, nonatomic) NSString* label;
@property(nullable, readwrite, nonatomic, strong) id<MTLFunction> computeFunction;
@property(readwrite, nonatomic) NSUInteger maxTotalThreadsPerThreadgroup;
@end

@protocol MTLCommandEncoder <NSObject>
@property(readonly) id<MTLDevice> device;
@property(nullable, copy, atomic) NSString* label;
- (void)endEncoding;
- (void)insertDebugSignpost:(NSString*)string;
- (void)pushDebugGroup:(NSString*)string;
- (void)popDebugGroup;
@end

@protocol MTLComputeCommandEncoder <MTLCommandEncoder>
@property(readonly) MTLDispatchType dispatchType;
- (void)setComputePipelineState:(id<MTLComputePipelineState>)state;
- (void)setBytes:(const void*)bytes length:(NSUInteger)length atIndex:(NSUInteger)index;
- (void)setBuffer:(nullable id<MTLBuffer>)buffer offset:(NSUInteger)offset atIndex:(NSUInteger)index;
- (void)setBufferOffset:(NSUInteger)offset atIndex:(NSUInteger)index;
- (void)setBuffers:(const id<MTLBuffer> __nullable[])buffers
           offsets:(const NSUInteger[])offsets
         withRange:(NSRange)range;
- (void)setThreadgroupMemoryLength:(NSUInteger)length atIndex:(NSUInteger)index;
- (void)dispatchThreadgroups:(MTLSize)threadgroupsPerGrid threadsPerThreadgroup:(MTLSize)threadsPerThreadgroup;
- (void)dispatchThreads:(MTLSize)threadsPerGrid threadsPerThreadgroup:(MTLSize)threadsPerThreadgroup;
- (void)useResource:(id<MTLResource>)resource usage:(MTLResourceUsage)usage;
- (void)useResources:(const id<MTLResource> _Nonnull[])resources count:(NSUInteger)count usage:(MTLResourceUsage)usage;
- (void)useHeap:(id<MTLHeap>)heap;
- (void)memoryBarrierWithScope:(MTLBarrierScope)scope;
- (void)memoryBarrierWithResources:(const id<MTLResource> _Nonnull[])resources count:(NSUInteger)count;
@end

@protocol MTLBlitCommandEncoder <MTLCommandEncoder>
- (void)copyFromBuffer:(id<MTLBuffer>)sourceBuffer
           sourceOffset:(NSUInteger)sourceOffset
               toBuffer:(id<MTLBuffer>)destinationBuffer
      destinationOffset:(NSUInteger)destinationOffset
                   size:(NSUInteger)size;
- (void)fillBuffer:(id<MTLBuffer>)buffer range:(NSRange)range value:(uint8_t)value;
- (void)synchronizeResource:(id<MTLResource>)resource;
@end

@protocol MTLArgumentEncoder <NSObject>
@property(readonly) id<MTLDevice> device;
@property(readonly) NSUInteger encodedLength;
@property(readonly) NSUInteger alignment;
- (void)setArgumentBuffer:(nullable id<MTLBuffer>)argumentBuffer offset:(NSUInteger)offset;
- (void)setBuffer:(nullable id<MTLBuffer>)buffer offset:(NSUInteger)offset atIndex:(NSUInteger)index;
- (void)setBuffers:(const id<MTLBuffer> __nullable[])buffers
           offsets:(const NSUInteger[])offsets
         withRange:(NSRange)range;
- (void*)constantDataAtIndex:(NSUInteger)index;
@end

@protocol MTLEvent <NSObject>
@property(readonly) id<MTLDevice> device;
@property(nullable, copy, atomic) NSString* label;
@end

@interface MTLSharedEventListener : NSObject
- (instancetype)initWithDispatchQueue:(dispatch_queue_t)dispatchQueue;
@property(nonnull, readonly) dispatch_queue_t dispatchQueue;
@end

@interface MTLSharedEventHandle : NSObject <NSSecureCoding>
@property(readonly) NSString* label;
@end

@protocol MTLSharedEvent <MTLEvent>
- (void)notifyListener:(MTLSharedEventListener*)listener
               atValue:(uint64_t)value
                 block:(MTLSharedEventNotificationBlock)block;
- (MTLSharedEventHandle*)newSharedEventHandle;
- (BOOL)waitUntilSignaledValue:(uint64_t)value timeoutMS:(uint64_t)milliseconds;
@property(readwrite) uint64_t signaledValue;
@end

@protocol MTLCommandBuffer <NSObject>
@property(readonly) id<MTLDevice> device;
@property(readonly) id<MTLCommandQueue> commandQueue;
@property(nullable, copy, atomic) NSString* label;
@property(readonly) BOOL retainedReferences;
@property(readonly) MTLCommandBufferStatus status;
@property(nullable, readonly) NSError* error;
@property(readonly) double kernelStartTime;
@property(readonly) double kernelEndTime;
@property(readonly) double GPUStartTime;
@property(readonly) double GPUEndTime;
- (void)enqueue;
- (void)commit;
- (void)waitUntilScheduled;
- (void)waitUntilCompleted;
- (void)addScheduledHandler:(MTLCommandBufferHandler)block;
- (void)addCompletedHandler:(MTLCommandBufferHandler)block;
- (nullable id<MTLBlitCommandEncoder>)blitCommandEncoder;
- (nullable id<MTLComputeCommandEncoder>)computeCommandEncoder;
- (nullable id<MTLComputeCommandEncoder>)computeCommandEncoderWithDispatchType:(MTLDispatchType)dispatchType;
- (void)encodeWaitForEvent:(id<MTLEvent>)event value:(uint64_t)value;
- (void)encodeSignalEvent:(id<MTLEvent>)event value:(uint64_t)value;
- (void)pushDebugGroup:(NSString*)string;
- (void)popDebugGroup;
@end

@interface MTLCommandBufferDescriptor : NSObject <NSCopying>
@property(readwrite, nonatomic) BOOL retainedReferences;
@end

@protocol MTLCommandQueue <NSObject>
@property(nullable, copy, atomic) NSString* label;
@property(readonly) id<MTLDevice> device;
- (nullable id<MTLCommandBuffer>)commandBuffer;
- (nullable id<MTLCommandBuffer>)commandBufferWithDescriptor:(MTLCommandBufferDescriptor*)descriptor;
- (nullable id<MTLCommandBuffer>)commandBufferWithUnretainedReferences;
@end

@protocol MTLDevice <NSObject>
@property(readonly) NSString* name;
@property(readonly) uint64_t registryID;
@property(readonly) MTLSize maxThreadsPerThreadgroup;
@property(readonly, getter=isLowPower) BOOL lowPower;
@property(readonly, getter=isHeadless) BOOL headless;
@property(readonly, getter=isRemovable) BOOL removable;
@property(readonly) BOOL hasUnifiedMemory;
@property(readonly) uint64_t recommendedMaxWorkingSetSize;
@property(readonly) NSUInteger currentAllocatedSize;
@property(readonly) NSUInteger maxThreadgroupMemoryLength;
@property(readonly) NSUInteger maxBufferLength;
@property(readonly) BOOL supportsDynamicLibraries;
- (BOOL)supportsFamily:(MTLGPUFamily)gpuFamily;
- (nullable id<MTLCommandQueue>)newCommandQueue;
- (nullable id<MTLCommandQueue>)newCommandQueueWithMaxCommandBufferCount:(NSUInteger)maxCommandBufferCount;
- (nullable id<MTLBuffer>)newBufferWithLength:(NSUInteger)length options:(MTLResourceOptions)options;
- (nullable id<MTLBuffer>)newBufferWithBytes:(const void*)pointer
                                      length:(NSUInteger)length
                                     options:(MTLResourceOptions)options;
- (nullable id<MTLBuffer>)newBufferWithBytesNoCopy:(void*)pointer
                                            length:(NSUInteger)length
                                           options:(MTLResourceOptions)options
                                       deallocator:(void (^__nullable)(void* pointer, NSUInteger length))deallocator;
- (nullable id<MTLHeap>)newHeapWithDescriptor:(MTLHeapDescriptor*)descriptor;
- (NSUInteger)heapBufferSizeAndAlignWithLength:(NSUInteger)length options:(MTLResourceOptions)options;
- (nullable id<MTLLibrary>)newDefaultLibrary;
- (nullable id<MTLLibrary>)newLibraryWithSource:(NSString*)source
                                        options:(nullable MTLCompileOptions*)options
                                          error:(NSError**)error;
- (nullable id<MTLLibrary>)newLibraryWithData:(dispatch_data_t)data error:(NSError**)error;
- (nullable id<MTLLibrary>)newLibraryWithURL:(NSURL*)url error:(NSError**)error;
- (nullable id<MTLComputePipelineState>)newComputePipelineStateWithFunction:(id<MTLFunction>)computeFunction
                                                                      error:(NSError**)error;
- (nullable id<MTLComputePipelineState>)newComputePipelineStateWithDescriptor:(MTLComputePipelineDescriptor*)descriptor
                                                                      options:(NSUInteger)options
                                                                   reflection:(MTLComputePipelineReflection**)reflection
                                                                        error:(NSError**)error;
- (nullable id<MTLSharedEvent>)newSharedEvent;
- (nullable id<MTLEvent>)newEvent;
@end

extern "C" id<MTLDevice> _Nullable MTLCreateSystemDefaultDevice(void);
extern "C" NSArray<id<MTLDevice>>* MTLCopyAllDevices(void);

@interface MTLCaptureDescriptor : NSObject <NSCopying>
@property(nullable, strong) id captureObject;
@property MTLCaptureDestination destination;
@property(nullable, copy) NSURL* outputURL;
@end

@interface MTLCaptureManager : NSObject
+ (MTLCaptureManager*)sharedCaptureManager;
- (BOOL)startCaptureWithDescriptor:(MTLCaptureDescriptor*)descriptor error:(NSError**)error;
- (void)stopCapture;
@property(readonly) BOOL isCapturing;
- (BOOL)supportsDestination:(MTLCaptureDestination)destination;
@end
