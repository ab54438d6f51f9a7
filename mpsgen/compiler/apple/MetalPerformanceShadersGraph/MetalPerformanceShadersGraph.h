// mpsgen's stand-in for Apple's MetalPerformanceShadersGraph (see Foundation/Foundation.h for what a
// stub declares). Most of MPSGraph's operations (the methods that return an MPSGraphTensor) are left
// out: a send falls back to an `id` result, which a tensor variable accepts.
#pragma once
#include <MetalPerformanceShaders/MetalPerformanceShaders.h>

@class MPSGraph, MPSGraphTensor, MPSGraphTensorData, MPSGraphOperation, MPSGraphExecutable, MPSGraphShapedType,
    MPSGraphDevice, MPSGraphExecutionDescriptor, MPSGraphExecutableExecutionDescriptor, MPSGraphCompilationDescriptor;

typedef NS_OPTIONS(uint64_t, MPSGraphOptions){MPSGraphOptionsNone = 0, MPSGraphOptionsSynchronizeResults = 1,
                                               MPSGraphOptionsVerbose = 2,
                                               MPSGraphOptionsDefault = MPSGraphOptionsSynchronizeResults};
typedef NS_ENUM(uint64_t, MPSGraphOptimization){MPSGraphOptimizationLevel0 = 0, MPSGraphOptimizationLevel1 = 1};
typedef NS_OPTIONS(uint64_t, MPSGraphOptimizationProfile){MPSGraphOptimizationProfilePerformance = 0,
                                                           MPSGraphOptimizationProfilePowerEfficiency = 1};
typedef NS_ENUM(uint64_t, MPSGraphExecutionStage){MPSGraphExecutionStageCompleted = 0};
typedef NS_ENUM(uint32_t, MPSGraphDeviceType){MPSGraphDeviceTypeMetal = 0};
typedef NS_ENUM(NSUInteger, MPSGraphTensorNamedDataLayout){
    MPSGraphTensorNamedDataLayoutNCHW = 0,  MPSGraphTensorNamedDataLayoutNHWC = 1,
    MPSGraphTensorNamedDataLayoutOIHW = 2,  MPSGraphTensorNamedDataLayoutHWIO = 3,
    MPSGraphTensorNamedDataLayoutCHW = 4,   MPSGraphTensorNamedDataLayoutHWC = 5,
    MPSGraphTensorNamedDataLayoutHW = 6,    MPSGraphTensorNamedDataLayoutNCDHW = 7,
    MPSGraphTensorNamedDataLayoutNDHWC = 8, MPSGraphTensorNamedDataLayoutOIDHW = 9,
    MPSGraphTensorNamedDataLayoutDHWIO = 10};
typedef NS_ENUM(NSUInteger, MPSGraphPaddingStyle){MPSGraphPaddingStyleExplicit = 0, MPSGraphPaddingStyleTF_VALID = 1,
                                                  MPSGraphPaddingStyleTF_SAME = 2,
                                                  MPSGraphPaddingStyleExplicitOffset = 3,
                                                  MPSGraphPaddingStyleONNX_SAME_LOWER = 4};
typedef NS_ENUM(NSInteger, MPSGraphPaddingMode){MPSGraphPaddingModeConstant = 0,    MPSGraphPaddingModeReflect = 1,
                                                MPSGraphPaddingModeSymmetric = 2,   MPSGraphPaddingModeClampToEdge = 3,
                                                MPSGraphPaddingModeZero = 4,        MPSGraphPaddingModePeriodic = 5,
                                                MPSGraphPaddingModeAntiPeriodic = 6};
typedef NS_ENUM(NSUInteger, MPSGraphReductionMode){MPSGraphReductionModeMin = 0,         MPSGraphReductionModeMax = 1,
                                                   MPSGraphReductionModeSum = 2,         MPSGraphReductionModeProduct = 3,
                                                   MPSGraphReductionModeArgumentMin = 4, MPSGraphReductionModeArgumentMax = 5};
typedef NS_ENUM(NSInteger, MPSGraphScatterMode){MPSGraphScatterModeAdd = 0, MPSGraphScatterModeSub = 1,
                                                MPSGraphScatterModeMul = 2, MPSGraphScatterModeDiv = 3,
                                                MPSGraphScatterModeMin = 4, MPSGraphScatterModeMax = 5,
                                                MPSGraphScatterModeSet = 6};
typedef NS_ENUM(NSUInteger, MPSGraphResizeMode){MPSGraphResizeNearest = 0, MPSGraphResizeBilinear = 1};
typedef NS_ENUM(NSUInteger, MPSGraphResizeNearestRoundingMode){
    MPSGraphResizeNearestRoundingModeRoundPreferCeil = 0, MPSGraphResizeNearestRoundingModeRoundPreferFloor = 1,
    MPSGraphResizeNearestRoundingModeCeil = 2,            MPSGraphResizeNearestRoundingModeFloor = 3,
    MPSGraphResizeNearestRoundingModeRoundToEven = 4,     MPSGraphResizeNearestRoundingModeRoundToOdd = 5};
typedef NS_ENUM(uint64_t, MPSGraphLossReductionType){MPSGraphLossReductionTypeNone = 0,
                                                     MPSGraphLossReductionTypeAxis = 0,
                                                     MPSGraphLossReductionTypeSum = 1,
                                                     MPSGraphLossReductionTypeMean = 2};
typedef NS_ENUM(uint64_t, MPSGraphRandomDistribution){MPSGraphRandomDistributionUniform = 0,
                                                      MPSGraphRandomDistributionNormal = 1,
                                                      MPSGraphRandomDistributionTruncatedNormal = 2};
typedef NS_ENUM(uint64_t, MPSGraphRandomNormalSamplingMethod){MPSGraphRandomNormalSamplingInvCDF = 0,
                                                              MPSGraphRandomNormalSamplingBoxMuller = 1};
typedef NS_ENUM(NSUInteger, MPSGraphPoolingReturnIndicesMode){
    MPSGraphPoolingReturnIndicesNone = 0,           MPSGraphPoolingReturnIndicesGlobalFlatten1D = 1,
    MPSGraphPoolingReturnIndicesGlobalFlatten2D = 2, MPSGraphPoolingReturnIndicesGlobalFlatten3D = 3,
    MPSGraphPoolingReturnIndicesGlobalFlatten4D = 4, MPSGraphPoolingReturnIndicesLocalFlatten1D = 5,
    MPSGraphPoolingReturnIndicesLocalFlatten2D = 6,  MPSGraphPoolingReturnIndicesLocalFlatten3D = 7,
    MPSGraphPoolingReturnIndicesLocalFlatten4D = 8};
typedef NS_ENUM(NSUInteger, MPSGraphFFTScalingMode){MPSGraphFFTScalingModeNone = 0, MPSGraphFFTScalingModeSize = 1,
                                                    MPSGraphFFTScalingModeUnitary = 2};
typedef NS_ENUM(NSUInteger, MPSGraphRNNActivation){MPSGraphRNNActivationNone = 0, MPSGraphRNNActivationRelu = 1,
                                                   MPSGraphRNNActivationTanh = 2, MPSGraphRNNActivationSigmoid = 3,
                                                   MPSGraphRNNActivationHardSigmoid = 4};
typedef NS_ENUM(NSUInteger, MPSGraphNonMaximumSuppressionCoordinateMode){
    MPSGraphNonMaximumSuppressionCoordinateModeCornersHeightFirst = 0};
typedef NS_ENUM(uint64_t, MPSGraphSparseStorageType){MPSGraphSparseStorageCOO = 0, MPSGraphSparseStorageCSC = 1,
                                                     MPSGraphSparseStorageCSR = 2};

typedef NSDictionary<MPSGraphTensor*, MPSGraphTensorData*> MPSGraphTensorDataDictionary;
typedef NSDictionary<MPSGraphTensor*, MPSGraphShapedType*> MPSGraphTensorShapedTypeDictionary;
typedef void (^MPSGraphCompletionHandler)(MPSGraphTensorDataDictionary* resultsDictionary, NSError* _Nullable error);
typedef void (^MPSGraphScheduledHandler)(MPSGraphTensorDataDictionary* resultsDictionary, NSError* _Nullable error);
typedef void (^MPSGraphCompilationCompletionHandler)(MPSGraphExecutable* executable, NSError* _Nullable error);
typedef void (^MPSGraphExecutableCompletionHandler)(NSArray<MPSGraphTensorData*>* results, NSError* _Nullable error);
typedef void (^MPSGraphExecutableScheduledHandler)(NSArray<MPSGraphTensorData*>* results, NSError* _Nullable error);
typedef MPSGraphTensor* _Nonnull (^MPSGraphWhileBeforeBlock)(NSArray<MPSGraphTensor*>* inputTensors,
                                                              NSMutableArray<MPSGraphTensor*>* resultTensors);
typedef NSArray<MPSGraphTensor*>* _Nonnull (^MPSGraphWhileAfterBlock)(NSArray<MPSGraphTensor*>* bodyBlockArguments);
typedef NSArray<MPSGraphTensor*>* _Nonnull (^MPSGraphIfThenElseBlock)(void);
typedef NSArray<MPSGraphTensor*>* _Nonnull (^MPSGraphForLoopBodyBlock)(MPSGraphTensor* index,
                                                                         NSArray<MPSGraphTensor*>* iterationArguments);
typedef NSArray<MPSGraphTensor*>* _Nonnull (^MPSGraphControlFlowDependencyBlock)(void);

@interface MPSGraphObject : NSObject
@end

@interface MPSGraphType : MPSGraphObject <NSCopying>
@end

@interface MPSGraphShapedType : MPSGraphType
@property(readwrite, nullable, copy, atomic) MPSShape* shape;
@property(readwrite, atomic) MPSDataType dataType;
- (instancetype)initWithShape:(MPSShape* _Nullable)shape dataType:(MPSDataType)dataType;
- (BOOL)isEqualTo:(MPSGraphShapedType* _Nullable)object;
@end

@interface MPSGraphDevice : MPSGraphObject
@property(readonly) MPSGraphDeviceType type;
@property(readonly, nullable) id<MTLDevice> metalDevice;
+ (instancetype)deviceWithMTLDevice:(id<MTLDevice>)metalDevice;
@end

@interface MPSGraphOperation : MPSGraphObject <NSCopying>
@property(readonly, nonnull, nonatomic) NSArray<MPSGraphTensor*>* inputTensors;
@property(readonly, nonnull, nonatomic) NSArray<MPSGraphTensor*>* outputTensors;
@property(readonly, nonnull, nonatomic) NSArray<MPSGraphOperation*>* controlDependencies;
@property(readonly, nonnull, nonatomic) MPSGraph* graph;
@property(readonly, nonnull, nonatomic) NSString* name;
@end

@interface MPSGraphTensor : MPSGraphObject <NSCopying>
@property(readonly, nullable, copy) MPSShape* shape;
@property(readonly) MPSDataType dataType;
@property(readonly, nonnull) MPSGraphOperation* operation;
@end

@interface MPSGraphTensorData : MPSGraphObject
@property(readonly, copy, nonnull, atomic) MPSShape* shape;
@property(readonly, atomic) MPSDataType dataType;
@property(readonly, nonnull, atomic) MPSGraphDevice* device;
- (instancetype)initWithDevice:(MPSGraphDevice*)device
                          data:(NSData*)data
                         shape:(MPSShape*)shape
                      dataType:(MPSDataType)dataType;
- (instancetype)initWithMTLBuffer:(id<MTLBuffer>)buffer shape:(MPSShape*)shape dataType:(MPSDataType)dataType;
- (instancetype)initWithMTLBuffer:(id<MTLBuffer>)buffer
                            shape:(MPSShape*)shape
                         dataType:(MPSDataType)dataType
                      rowBytes:(NSUInteger)rowBytes;
- (instancetype)initWithMPSMatrix:(MPSMatrix*)matrix;
- (instancetype)initWithMPSNDArray:(MPSNDArray*)ndarray;
- (MPSNDArray*)mpsndarray;
@end

@interface MPSGraphCompilationDescriptor : MPSGraphObject <NSCopying>
@property(readwrite, nonatomic) MPSGraphOptimization optimizationLevel;
@property(readwrite, nonatomic) BOOL waitForCompilationCompletion;
@property(readwrite, nonatomic) MPSGraphOptimizationProfile optimizationProfile;
@property(readwrite, nonatomic, nullable) MPSGraphCompilationCompletionHandler compilationCompletionHandler;
- (void)disableTypeInference;
@end

@interface MPSGraphExecutionDescriptor : MPSGraphObject
@property(readwrite, atomic) MPSGraphScheduledHandler scheduledHandler;
@property(readwrite, atomic) MPSGraphCompletionHandler completionHandler;
@property(readwrite, atomic) BOOL waitUntilCompleted;
@property(readwrite, atomic, copy, nullable) MPSGraphCompilationDescriptor* compilationDescriptor;
- (void)waitForEvent:(id<MTLSharedEvent>)event value:(uint64_t)value;
- (void)signalEvent:(id<MTLSharedEvent>)event atExecutionEvent:(MPSGraphExecutionStage)executionStage value:(uint64_t)value;
@end

@interface MPSGraphExecutableExecutionDescriptor : MPSGraphObject
@property(readwrite, atomic) MPSGraphExecutableScheduledHandler scheduledHandler;
@property(readwrite, atomic) MPSGraphExecutableCompletionHandler completionHandler;
@property(readwrite, atomic) BOOL waitUntilCompleted;
- (void)waitForEvent:(id<MTLSharedEvent>)event value:(uint64_t)value;
- (void)signalEvent:(id<MTLSharedEvent>)event atExecutionEvent:(MPSGraphExecutionStage)executionStage value:(uint64_t)value;
@end

@interface MPSGraphExecutable : MPSGraphObject
@property(readwrite, atomic) MPSGraphOptions options;
@property(readonly, atomic, nullable) NSArray<MPSGraphTensor*>* feedTensors;
@property(readonly, atomic, nullable) NSArray<MPSGraphTensor*>* targetTensors;
- (void)specializeWithDevice:(MPSGraphDevice* _Nullable)device
                  inputTypes:(NSArray<MPSGraphType*>*)inputTypes
       compilationDescriptor:(MPSGraphCompilationDescriptor* _Nullable)compilationDescriptor;
- (NSArray<MPSGraphTensorData*>*)runWithMTLCommandQueue:(id<MTLCommandQueue>)commandQueue
                                           inputsArray:(NSArray<MPSGraphTensorData*>*)inputsArray
                                          resultsArray:(NSArray<MPSGraphTensorData*>* _Nullable)resultsArray
                                   executionDescriptor:(MPSGraphExecutableExecutionDescriptor* _Nullable)executionDescriptor;
- (NSArray<MPSGraphTensorData*>*)encodeToCommandBuffer:(MPSCommandBuffer*)commandBuffer
                                          inputsArray:(NSArray<MPSGraphTensorData*>*)inputsArray
                                         resultsArray:(NSArray<MPSGraphTensorData*>* _Nullable)resultsArray
                                  executionDescriptor:(MPSGraphExecutableExecutionDescriptor* _Nullable)executionDescriptor;
@end

@interface MPSGraph : MPSGraphObject
@property(readwrite, atomic) MPSGraphOptions options;
@property(readonly, nonnull) NSArray<MPSGraphTensor*>* placeholderTensors;
+ (instancetype)new;
- (instancetype)init;
- (MPSGraphExecutable*)compileWithDevice:(MPSGraphDevice* _Nullable)device
                                   feeds:(MPSGraphTensorShapedTypeDictionary*)feeds
                           targetTensors:(NSArray<MPSGraphTensor*>*)targetTensors
                        targetOperations:(NSArray<MPSGraphOperation*>* _Nullable)targetOperations
                   compilationDescriptor:(MPSGraphCompilationDescriptor* _Nullable)compilationDescriptor;
- (MPSGraphTensorDataDictionary*)runWithFeeds:(MPSGraphTensorDataDictionary*)feeds
                                targetTensors:(NSArray<MPSGraphTensor*>*)targetTensors
                             targetOperations:(NSArray<MPSGraphOperation*>* _Nullable)targetOperations;
- (MPSGraphTensorDataDictionary*)runWithMTLCommandQueue:(id<MTLCommandQueue>)commandQueue
                                                  feeds:(MPSGraphTensorDataDictionary*)feeds
                                          targetTensors:(NSArray<MPSGraphTensor*>*)targetTensors
                                       targetOperations:(NSArray<MPSGraphOperation*>* _Nullable)targetOperations;
- (void)runWithMTLCommandQueue:(id<MTLCommandQueue>)commandQueue
                         feeds:(MPSGraphTensorDataDictionary*)feeds
              targetOperations:(NSArray<MPSGraphOperation*>* _Nullable)targetOperations
             resultsDictionary:(MPSGraphTensorDataDictionary*)resultsDictionary;
- (void)encodeToCommandBuffer:(MPSCommandBuffer*)commandBuffer
                        feeds:(MPSGraphTensorDataDictionary*)feeds
             targetOperations:(NSArray<MPSGraphOperation*>* _Nullable)targetOperations
            resultsDictionary:(MPSGraphTensorDataDictionary*)resultsDictionary
          executionDescriptor:(MPSGraphExecutionDescriptor* _Nullable)executionDescriptor;
- (MPSGraphTensorDataDictionary*)encodeToCommandBuffer:(MPSCommandBuffer*)commandBuffer
                                                 feeds:(MPSGraphTensorDataDictionary*)feeds
                                         targetTensors:(NSArray<MPSGraphTensor*>*)targetTensors
                                      targetOperations:(NSArray<MPSGraphOperation*>* _Nullable)targetOperations
                                   executionDescriptor:(MPSGraphExecutionDescriptor* _Nullable)executionDescriptor;
@end

// Operation descriptors: the properties the sources set or read through dot syntax.
@interface MPSGraphConvolution2DOpDescriptor : NSObject <NSCopying>
@property(readwrite, nonatomic) NSUInteger strideInX, strideInY, dilationRateInX, dilationRateInY;
@property(readwrite, nonatomic) NSUInteger paddingLeft, paddingRight, paddingTop, paddingBottom;
@property(readwrite, nonatomic) MPSGraphPaddingStyle paddingStyle;
@property(readwrite, nonatomic) MPSGraphTensorNamedDataLayout dataLayout, weightsLayout;
@property(readwrite, nonatomic) NSUInteger groups;
+ (nullable instancetype)descriptorWithStrideInX:(NSUInteger)strideInX
                                       strideInY:(NSUInteger)strideInY
                                 dilationRateInX:(NSUInteger)dilationRateInX
                                 dilationRateInY:(NSUInteger)dilationRateInY
                                          groups:(NSUInteger)groups
                                     paddingLeft:(NSUInteger)paddingLeft
                                    paddingRight:(NSUInteger)paddingRight
                                      paddingTop:(NSUInteger)paddingTop
                                   paddingBottom:(NSUInteger)paddingBottom
                                    paddingStyle:(MPSGraphPaddingStyle)paddingStyle
                                      dataLayout:(MPSGraphTensorNamedDataLayout)dataLayout
                                   weightsLayout:(MPSGraphTensorNamedDataLayout)weightsLayout;
- (void)setExplicitPaddingWithPaddingLeft:(NSUInteger)paddingLeft
                             paddingRight:(NSUInteger)paddingRight
                               paddingTop:(NSUInteger)paddingTop
                            paddingBottom:(NSUInteger)paddingBottom;
@end

@interface MPSGraphConvolution3DOpDescriptor : NSObject <NSCopying>
@property(readwrite, nonatomic) NSUInteger strideInX, strideInY, strideInZ;
@property(readwrite, nonatomic) NSUInteger dilationRateInX, dilationRateInY, dilationRateInZ;
@property(readwrite, nonatomic) NSUInteger paddingLeft, paddingRight, paddingTop, paddingBottom, paddingFront, paddingBack;
@property(readwrite, nonatomic) MPSGraphPaddingStyle paddingStyle;
@property(readwrite, nonatomic) MPSGraphTensorNamedDataLayout dataLayout, weightsLayout;
@property(readwrite, nonatomic) NSUInteger groups;
@end

@interface MPSGraphDepthwiseConvolution2DOpDescriptor : NSObject <NSCopying>
@property(readwrite, nonatomic) NSUInteger strideInX, strideInY, dilationRateInX, dilationRateInY;
@property(readwrite, nonatomic) NSUInteger paddingLeft, paddingRight, paddingTop, paddingBottom;
@property(readwrite, nonatomic) MPSGraphPaddingStyle paddingStyle;
@property(readwrite, nonatomic) MPSGraphTensorNamedDataLayout dataLayout, weightsLayout;
@end

@interface MPSGraphDepthwiseConvolution3DOpDescriptor : NSObject <NSCopying>
@property(readwrite, nonatomic, copy) NSArray<NSNumber*>* strides;
@property(readwrite, nonatomic, copy) NSArray<NSNumber*>* dilationRates;
@property(readwrite, nonatomic, copy) NSArray<NSNumber*>* paddingValues;
@property(readwrite, nonatomic) MPSGraphPaddingStyle paddingStyle;
@property(readwrite, nonatomic) NSInteger channelDimensionIndex;
+ (nullable instancetype)descriptorWithPaddingStyle:(MPSGraphPaddingStyle)paddingStyle;
+ (nullable instancetype)descriptorWithStrides:(NSArray<NSNumber*>*)strides
                                 dilationRates:(NSArray<NSNumber*>*)dilationRates
                                 paddingValues:(NSArray<NSNumber*>*)paddingValues
                                  paddingStyle:(MPSGraphPaddingStyle)paddingStyle;
@end

@interface MPSGraphPooling2DOpDescriptor : NSObject <NSCopying>
@property(readwrite, nonatomic) NSUInteger kernelWidth, kernelHeight, strideInX, strideInY;
@property(readwrite, nonatomic) NSUInteger dilationRateInX, dilationRateInY;
@property(readwrite, nonatomic) NSUInteger paddingLeft, paddingRight, paddingTop, paddingBottom;
@property(readwrite, nonatomic) MPSGraphPaddingStyle paddingStyle;
@property(readwrite, nonatomic) MPSGraphTensorNamedDataLayout dataLayout;
@property(readwrite, nonatomic) MPSGraphPoolingReturnIndicesMode returnIndicesMode;
@property(readwrite, nonatomic) MPSDataType returnIndicesDataType;
@property(readwrite, nonatomic) BOOL ceilMode;
@property(readwrite, nonatomic) BOOL includeZeroPadToAverage;
+ (nullable instancetype)descriptorWithKernelWidth:(NSUInteger)kernelWidth
                                      kernelHeight:(NSUInteger)kernelHeight
                                         strideInX:(NSUInteger)strideInX
                                         strideInY:(NSUInteger)strideInY
                                      paddingStyle:(MPSGraphPaddingStyle)paddingStyle
                                        dataLayout:(MPSGraphTensorNamedDataLayout)dataLayout;
+ (nullable instancetype)descriptorWithKernelWidth:(NSUInteger)kernelWidth
                                      kernelHeight:(NSUInteger)kernelHeight
                                         strideInX:(NSUInteger)strideInX
                                         strideInY:(NSUInteger)strideInY
                                   dilationRateInX:(NSUInteger)dilationRateInX
                                   dilationRateInY:(NSUInteger)dilationRateInY
                                       paddingLeft:(NSUInteger)paddingLeft
                                      paddingRight:(NSUInteger)paddingRight
                                        paddingTop:(NSUInteger)paddingTop
                                     paddingBottom:(NSUInteger)paddingBottom
                                      paddingStyle:(MPSGraphPaddingStyle)paddingStyle
                                        dataLayout:(MPSGraphTensorNamedDataLayout)dataLayout;
- (void)setExplicitPaddingWithPaddingLeft:(NSUInteger)paddingLeft
                             paddingRight:(NSUInteger)paddingRight
                               paddingTop:(NSUInteger)paddingTop
                            paddingBottom:(NSUInteger)paddingBottom;
@end

@interface MPSGraphPooling4DOpDescriptor : NSObject <NSCopying>
@property(readwrite, nonatomic, copy) NSArray<NSNumber*>* kernelSizes;
@property(readwrite, nonatomic, copy) NSArray<NSNumber*>* strides;
@property(readwrite, nonatomic, copy) NSArray<NSNumber*>* dilationRates;
@property(readwrite, nonatomic, copy) NSArray<NSNumber*>* paddingValues;
@property(readwrite, nonatomic) MPSGraphPaddingStyle paddingStyle;
@property(readwrite, nonatomic) BOOL ceilMode;
@property(readwrite, nonatomic) BOOL includeZeroPadToAverage;
@property(readwrite, nonatomic) MPSGraphPoolingReturnIndicesMode returnIndicesMode;
@property(readwrite, nonatomic) MPSDataType returnIndicesDataType;
+ (nullable instancetype)descriptorWithKernelSizes:(NSArray<NSNumber*>*)kernelSizes
                                           strides:(NSArray<NSNumber*>*)strides
                                     dilationRates:(NSArray<NSNumber*>*)dilationRates
                                     paddingValues:(NSArray<NSNumber*>*)paddingValues
                                      paddingStyle:(MPSGraphPaddingStyle)paddingStyle;
+ (nullable instancetype)descriptorWithKernelSizes:(NSArray<NSNumber*>*)kernelSizes
                                      paddingStyle:(MPSGraphPaddingStyle)paddingStyle;
@end

@interface MPSGraphRandomOpDescriptor : NSObject <NSCopying>
@property(readwrite, nonatomic) MPSGraphRandomDistribution distribution;
@property(readwrite, nonatomic) MPSDataType dataType;
@property(readwrite, nonatomic) float min, max, mean, standardDeviation;
@property(readwrite, nonatomic) NSInteger minInteger, maxInteger;
@property(readwrite, nonatomic) MPSGraphRandomNormalSamplingMethod samplingMethod;
+ (nullable instancetype)descriptorWithDistribution:(MPSGraphRandomDistribution)distribution dataType:(MPSDataType)dataType;
@end

@interface MPSGraphFFTDescriptor : NSObject <NSCopying>
@property(readwrite, nonatomic) BOOL inverse;
@property(readwrite, nonatomic) MPSGraphFFTScalingMode scalingMode;
@property(readwrite, nonatomic) BOOL roundToOddHermitean;
+ (nullable instancetype)descriptor;
@end

@interface MPSGraphImToColOpDescriptor : NSObject <NSCopying>
@property(readwrite, nonatomic) NSUInteger kernelWidth, kernelHeight, strideInX, strideInY;
@property(readwrite, nonatomic) NSUInteger dilationRateInX, dilationRateInY;
@property(readwrite, nonatomic) NSUInteger paddingLeft, paddingRight, paddingTop, paddingBottom;
@property(readwrite, nonatomic) MPSGraphTensorNamedDataLayout dataLayout;
@end

@interface MPSGraphStencilOpDescriptor : NSObject <NSCopying>
@end

@interface MPSGraphCreateSparseOpDescriptor : NSObject <NSCopying>
@property(readwrite, nonatomic) MPSGraphSparseStorageType sparseStorageType;
@property(readwrite, nonatomic) MPSDataType dataType;
+ (nullable instancetype)descriptorWithStorageType:(MPSGraphSparseStorageType)sparseStorageType
                                          dataType:(MPSDataType)dataType;
@end

@interface MPSGraphVariableOp : MPSGraphOperation
@end

// The operations: only the most used, each with the SDK's signature, so that a result reached through
// dot syntax (`[graph op...].shape`) or `auto` has its type; any other operation is a send to `id`.
@interface MPSGraph (MPSGraphOperations)
- (MPSGraphTensor*)absoluteWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)ceilWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)floorWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)roundWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)rintWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)signWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)signbitWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)truncateWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)negativeWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reciprocalWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)squareWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)squareRootWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reverseSquareRootWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reciprocalSquareRootWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)exponentWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)exponentBase2WithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)exponentBase10WithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)logarithmWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)logarithmBase2WithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)logarithmBase10WithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)sinWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)cosWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)tanWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)sinhWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)coshWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)tanhWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)asinWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)acosWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)atanWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)asinhWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)acoshWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)atanhWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)erfWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)notWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)isNaNWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)isInfiniteWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)isFiniteWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)identityWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)sigmoidWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reLUWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)softPlusWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)conjugateWithTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)additionWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)subtractionWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)multiplicationWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)divisionWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)divisionNoNaNWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)moduloWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)powerWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)maximumWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)minimumWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)maximumWithNaNPropagationWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)minimumWithNaNPropagationWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)atan2WithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)equalWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)notEqualWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)lessThanWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)lessThanOrEqualToWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)greaterThanWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)greaterThanOrEqualToWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)logicalANDWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)logicalORWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)logicalNANDWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)logicalNORWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)logicalXORWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)logicalXNORWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)floorModuloWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)bitwiseANDWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)bitwiseORWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)bitwiseXORWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)bitwiseLeftShiftWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)bitwiseRightShiftWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)matrixMultiplicationWithPrimaryTensor:(MPSGraphTensor*)primaryTensor secondaryTensor:(MPSGraphTensor*)secondaryTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reductionSumWithTensor:(MPSGraphTensor*)tensor axis:(NSInteger)axis name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reductionSumWithTensor:(MPSGraphTensor*)tensor axes:(NSArray<NSNumber*>* _Nullable)axes name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reductionProductWithTensor:(MPSGraphTensor*)tensor axis:(NSInteger)axis name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reductionProductWithTensor:(MPSGraphTensor*)tensor axes:(NSArray<NSNumber*>* _Nullable)axes name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reductionMaximumWithTensor:(MPSGraphTensor*)tensor axis:(NSInteger)axis name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reductionMaximumWithTensor:(MPSGraphTensor*)tensor axes:(NSArray<NSNumber*>* _Nullable)axes name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reductionMinimumWithTensor:(MPSGraphTensor*)tensor axis:(NSInteger)axis name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reductionMinimumWithTensor:(MPSGraphTensor*)tensor axes:(NSArray<NSNumber*>* _Nullable)axes name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reductionMaximumPropagateNaNWithTensor:(MPSGraphTensor*)tensor axis:(NSInteger)axis name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reductionMaximumPropagateNaNWithTensor:(MPSGraphTensor*)tensor axes:(NSArray<NSNumber*>* _Nullable)axes name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reductionMinimumPropagateNaNWithTensor:(MPSGraphTensor*)tensor axis:(NSInteger)axis name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reductionMinimumPropagateNaNWithTensor:(MPSGraphTensor*)tensor axes:(NSArray<NSNumber*>* _Nullable)axes name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reductionArgMaximumWithTensor:(MPSGraphTensor*)tensor axis:(NSInteger)axis name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reductionArgMaximumWithTensor:(MPSGraphTensor*)tensor axes:(NSArray<NSNumber*>* _Nullable)axes name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reductionArgMinimumWithTensor:(MPSGraphTensor*)tensor axis:(NSInteger)axis name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reductionArgMinimumWithTensor:(MPSGraphTensor*)tensor axes:(NSArray<NSNumber*>* _Nullable)axes name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reductionAndWithTensor:(MPSGraphTensor*)tensor axis:(NSInteger)axis name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reductionAndWithTensor:(MPSGraphTensor*)tensor axes:(NSArray<NSNumber*>* _Nullable)axes name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reductionOrWithTensor:(MPSGraphTensor*)tensor axis:(NSInteger)axis name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reductionOrWithTensor:(MPSGraphTensor*)tensor axes:(NSArray<NSNumber*>* _Nullable)axes name:(NSString* _Nullable)name;
- (MPSGraphTensor*)placeholderWithShape:(MPSShape* _Nullable)shape dataType:(MPSDataType)dataType name:(NSString* _Nullable)name;
- (MPSGraphTensor*)placeholderWithShape:(MPSShape* _Nullable)shape name:(NSString* _Nullable)name;
- (MPSGraphTensor*)constantWithScalar:(double)scalar dataType:(MPSDataType)dataType;
- (MPSGraphTensor*)constantWithScalar:(double)scalar shape:(MPSShape*)shape dataType:(MPSDataType)dataType;
- (MPSGraphTensor*)constantWithData:(NSData*)data shape:(MPSShape*)shape dataType:(MPSDataType)dataType;
- (MPSGraphTensor*)castTensor:(MPSGraphTensor*)tensor toType:(MPSDataType)type name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reshapeTensor:(MPSGraphTensor*)tensor withShape:(MPSShape*)shape name:(NSString* _Nullable)name;
- (MPSGraphTensor*)reshapeTensor:(MPSGraphTensor*)tensor withShapeTensor:(MPSGraphTensor*)shapeTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)transposeTensor:(MPSGraphTensor*)tensor dimension:(NSUInteger)dimensionIndex withDimension:(NSUInteger)dimensionIndex2 name:(NSString* _Nullable)name;
- (MPSGraphTensor*)transposeTensor:(MPSGraphTensor*)tensor permutation:(NSArray<NSNumber*>*)permutation name:(NSString* _Nullable)name;
- (MPSGraphTensor*)sliceTensor:(MPSGraphTensor*)tensor dimension:(NSUInteger)dimensionIndex start:(NSInteger)start length:(NSInteger)length name:(NSString* _Nullable)name;
- (MPSGraphTensor*)concatTensor:(MPSGraphTensor*)tensor withTensor:(MPSGraphTensor*)tensor2 dimension:(NSInteger)dimensionIndex name:(NSString* _Nullable)name;
- (MPSGraphTensor*)concatTensors:(NSArray<MPSGraphTensor*>*)tensors dimension:(NSInteger)dimensionIndex name:(NSString* _Nullable)name;
- (MPSGraphTensor*)expandDimsOfTensor:(MPSGraphTensor*)tensor axis:(NSInteger)axis name:(NSString* _Nullable)name;
- (MPSGraphTensor*)expandDimsOfTensor:(MPSGraphTensor*)tensor axes:(NSArray<NSNumber*>*)axes name:(NSString* _Nullable)name;
- (MPSGraphTensor*)squeezeTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)squeezeTensor:(MPSGraphTensor*)tensor axis:(NSInteger)axis name:(NSString* _Nullable)name;
- (MPSGraphTensor*)squeezeTensor:(MPSGraphTensor*)tensor axes:(NSArray<NSNumber*>*)axes name:(NSString* _Nullable)name;
- (MPSGraphTensor*)broadcastTensor:(MPSGraphTensor*)tensor toShape:(MPSShape*)shape name:(NSString* _Nullable)name;
- (MPSGraphTensor*)broadcastTensor:(MPSGraphTensor*)tensor toShapeTensor:(MPSGraphTensor*)shapeTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)shapeOfTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)flatten2DTensor:(MPSGraphTensor*)tensor axis:(NSInteger)axis name:(NSString* _Nullable)name;
- (MPSGraphTensor*)selectWithPredicateTensor:(MPSGraphTensor*)predicateTensor truePredicateTensor:(MPSGraphTensor*)truePredicateTensor falsePredicateTensor:(MPSGraphTensor*)falseSelectTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)clampWithTensor:(MPSGraphTensor*)tensor minValueTensor:(MPSGraphTensor*)minValueTensor maxValueTensor:(MPSGraphTensor*)maxValueTensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)bandPartWithTensor:(MPSGraphTensor*)inputTensor numLower:(NSInteger)numLower numUpper:(NSInteger)numUpper name:(NSString* _Nullable)name;
- (MPSGraphTensor*)meanOfTensor:(MPSGraphTensor*)tensor axes:(NSArray<NSNumber*>*)axes name:(NSString* _Nullable)name;
- (MPSGraphTensor*)varianceOfTensor:(MPSGraphTensor*)tensor axes:(NSArray<NSNumber*>*)axes name:(NSString* _Nullable)name;
- (MPSGraphTensor*)varianceOfTensor:(MPSGraphTensor*)tensor meanTensor:(MPSGraphTensor*)meanTensor axes:(NSArray<NSNumber*>*)axes name:(NSString* _Nullable)name;
- (MPSGraphTensor*)softMaxWithTensor:(MPSGraphTensor*)tensor axis:(NSInteger)axis name:(NSString* _Nullable)name;
- (MPSGraphTensor*)realPartOfTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (MPSGraphTensor*)imaginaryPartOfTensor:(MPSGraphTensor*)tensor name:(NSString* _Nullable)name;
- (NSArray<MPSGraphTensor*>*)splitTensor:(MPSGraphTensor*)tensor splitSizes:(NSArray<NSNumber*>*)splitSizes axis:(NSInteger)axis name:(NSString* _Nullable)name;
- (NSArray<MPSGraphTensor*>*)splitTensor:(MPSGraphTensor*)tensor numSplits:(NSUInteger)numSplits axis:(NSInteger)axis name:(NSString* _Nullable)name;
@end
#include <MetalPerformanceShadersGraph/MPSGraphRNNOps.h>
