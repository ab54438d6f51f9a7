// mpsgen's stand-in for Apple's MetalPerformanceShaders (see Foundation/Foundation.h for what a stub
// declares).
#pragma once
#include <Metal/Metal.h>

typedef NS_OPTIONS(uint32_t, MPSDataType){
    MPSDataTypeInvalid = 0,
    MPSDataTypeFloatBit = 0x10000000,
    MPSDataTypeFloat32 = MPSDataTypeFloatBit | 32,
    MPSDataTypeFloat16 = MPSDataTypeFloatBit | 16,
    MPSDataTypeComplexBit = 0x01000000,
    MPSDataTypeComplexFloat32 = MPSDataTypeFloatBit | MPSDataTypeComplexBit | 64,
    MPSDataTypeComplexFloat16 = MPSDataTypeFloatBit | MPSDataTypeComplexBit | 32,
    MPSDataTypeSignedBit = 0x20000000,
    MPSDataTypeIntBit = MPSDataTypeSignedBit,
    MPSDataTypeInt4 = MPSDataTypeSignedBit | 4,
    MPSDataTypeInt8 = MPSDataTypeSignedBit | 8,
    MPSDataTypeInt16 = MPSDataTypeSignedBit | 16,
    MPSDataTypeInt32 = MPSDataTypeSignedBit | 32,
    MPSDataTypeInt64 = MPSDataTypeSignedBit | 64,
    MPSDataTypeUInt4 = 4,
    MPSDataTypeUInt8 = 8,
    MPSDataTypeUInt16 = 16,
    MPSDataTypeUInt32 = 32,
    MPSDataTypeUInt64 = 64,
    MPSDataTypeAlternateEncodingBit = 0x80000000,
    MPSDataTypeBool = MPSDataTypeAlternateEncodingBit | 8,
    MPSDataTypeBFloat16 = MPSDataTypeAlternateEncodingBit | MPSDataTypeFloat16,
    MPSDataTypeNormalizedBit = 0x40000000,
    MPSDataTypeUnorm1 = MPSDataTypeNormalizedBit | 1,
    MPSDataTypeUnorm8 = MPSDataTypeNormalizedBit | 8,
};

typedef NSArray<NSNumber*> MPSShape;
typedef struct {
  NSUInteger start, length;
} MPSDimensionSlice;

@interface MPSKernel : NSObject <NSCopying, NSSecureCoding>
@property(readonly, retain, nonnull) id<MTLDevice> device;
@property(copy, atomic, nullable) NSString* label;
- (nonnull instancetype)initWithDevice:(nonnull id<MTLDevice>)device;
@end

@interface MPSCommandBuffer : NSObject <MTLCommandBuffer>
@property(readonly, retain, nonnull) id<MTLCommandBuffer> commandBuffer;
@property(readonly, retain, nonnull) id<MTLCommandBuffer> rootCommandBuffer;
+ (nonnull instancetype)commandBufferWithCommandBuffer:(nonnull id<MTLCommandBuffer>)commandBuffer;
+ (nonnull instancetype)commandBufferFromCommandQueue:(nonnull id<MTLCommandQueue>)commandQueue;
- (nonnull instancetype)initWithCommandBuffer:(nonnull id<MTLCommandBuffer>)commandBuffer;
- (void)commitAndContinue;
@end

@interface MPSNDArrayDescriptor : NSObject
@property(readwrite, nonatomic) MPSDataType dataType;
@property(readwrite, nonatomic) NSUInteger numberOfDimensions;
@property(readwrite, nonatomic) BOOL preferPackedRows;
- (NSUInteger)lengthOfDimension:(NSUInteger)dimensionIndex;
- (MPSDimensionSlice)sliceRangeForDimension:(NSUInteger)dimensionIndex;
- (void)sliceDimension:(NSUInteger)dimensionIndex withSubrange:(MPSDimensionSlice)subRange;
- (void)transposeDimension:(NSUInteger)dimensionIndex withDimension:(NSUInteger)dimensionIndex2;
- (void)reshapeWithDimensionCount:(NSUInteger)numberOfDimensions sizes:(NSUInteger* _Nonnull)dimensionSizes;
- (void)reshapeWithShape:(MPSShape* _Nonnull)shape;
- (nonnull MPSShape*)getShape;
+ (nonnull instancetype)descriptorWithDataType:(MPSDataType)dataType shape:(MPSShape* _Nonnull)shape;
+ (nonnull instancetype)descriptorWithDataType:(MPSDataType)dataType
                                dimensionCount:(NSUInteger)numberOfDimensions
                                dimensionSizes:(NSUInteger* _Nonnull)dimensionSizes;
@end

@interface MPSNDArray : NSObject
@property(readonly, nonatomic) MPSDataType dataType;
@property(readonly, nonatomic) size_t dataTypeSize;
@property(readonly, nonatomic) NSUInteger numberOfDimensions;
@property(readonly, retain, nonatomic, nonnull) id<MTLDevice> device;
@property(copy, atomic, nullable) NSString* label;
@property(readonly, nonatomic, nullable, retain) MPSNDArray* parent;
- (NSUInteger)lengthOfDimension:(NSUInteger)dimensionIndex;
- (nonnull MPSNDArrayDescriptor*)descriptor;
- (NSUInteger)resourceSize;
- (nonnull instancetype)initWithDevice:(nonnull id<MTLDevice>)device descriptor:(MPSNDArrayDescriptor* _Nonnull)descriptor;
- (nonnull instancetype)initWithBuffer:(nonnull id<MTLBuffer>)buffer
                                offset:(NSUInteger)offset
                            descriptor:(MPSNDArrayDescriptor* _Nonnull)descriptor;
- (nullable MPSNDArray*)arrayViewWithDescriptor:(MPSNDArrayDescriptor* _Nonnull)descriptor;
- (nullable MPSNDArray*)arrayViewWithShape:(MPSShape* _Nullable)shape strides:(MPSShape* _Nonnull)strides;
- (void)readBytes:(void* _Nonnull)buffer strideBytes:(NSInteger* __nullable)strideBytesPerDimension;
- (void)writeBytes:(void* _Nonnull)buffer strideBytes:(NSInteger* __nullable)strideBytesPerDimension;
- (void)exportDataWithCommandBuffer:(nonnull id<MTLCommandBuffer>)cmdBuf
                           toBuffer:(nonnull id<MTLBuffer>)buffer
                    destinationDataType:(MPSDataType)destinationDataType
                             offset:(NSUInteger)offset
                         rowStrides:(NSInteger* __nullable)rowStrides;
- (void)importDataWithCommandBuffer:(nonnull id<MTLCommandBuffer>)cmdBuf
                         fromBuffer:(nonnull id<MTLBuffer>)buffer
                         sourceDataType:(MPSDataType)sourceDataType
                             offset:(NSUInteger)offset
                         rowStrides:(NSInteger* __nullable)rowStrides;
- (void)synchronizeOnCommandBuffer:(nonnull id<MTLCommandBuffer>)commandBuffer;
- (nullable id<MTLBuffer>)buffer;
@end

@interface MPSNDArrayMultiaryBase : MPSKernel
@end
@interface MPSNDArrayMultiaryKernel : MPSNDArrayMultiaryBase
- (nonnull instancetype)initWithDevice:(nonnull id<MTLDevice>)device sourceCount:(NSUInteger)count;
- (void)encodeToCommandBuffer:(nonnull id<MTLCommandBuffer>)cmdBuf
                 sourceArrays:(NSArray<MPSNDArray*>* _Nonnull)sourceArrays
             destinationArray:(MPSNDArray* _Nonnull)destination;
- (nonnull MPSNDArray*)encodeToCommandBuffer:(nonnull id<MTLCommandBuffer>)cmdBuf
                                sourceArrays:(NSArray<MPSNDArray*>* _Nonnull)sourceArrays;
@end
@interface MPSNDArrayUnaryKernel : MPSNDArrayMultiaryKernel
- (void)encodeToCommandBuffer:(nonnull id<MTLCommandBuffer>)cmdBuf
                  sourceArray:(MPSNDArray* _Nonnull)sourceArray
             destinationArray:(MPSNDArray* _Nonnull)destination;
@end
@interface MPSNDArrayBinaryKernel : MPSNDArrayMultiaryKernel
@end
@interface MPSNDArrayMatrixMultiplication : MPSNDArrayMultiaryKernel
@property(readwrite, nonatomic) double alpha;
@property(readwrite, nonatomic) double beta;
@end
@interface MPSNDArrayIdentity : MPSNDArrayUnaryKernel
- (MPSNDArray* __nullable)reshapeWithCommandBuffer:(__nullable id<MTLCommandBuffer>)cmdBuf
                                       sourceArray:(MPSNDArray* _Nonnull)sourceArray
                                             shape:(MPSShape* _Nonnull)shape
                                  destinationArray:(MPSNDArray* __nullable)destinationArray;
@end

@interface MPSMatrixDescriptor : NSObject
@property(readwrite, nonatomic) NSUInteger rows;
@property(readwrite, nonatomic) NSUInteger columns;
@property(readwrite, nonatomic) NSUInteger matrices;
@property(readwrite, nonatomic) MPSDataType dataType;
@property(readwrite, nonatomic) NSUInteger rowBytes;
@property(readonly, nonatomic) NSUInteger matrixBytes;
+ (nonnull MPSMatrixDescriptor*)matrixDescriptorWithRows:(NSUInteger)rows
                                                 columns:(NSUInteger)columns
                                                rowBytes:(NSUInteger)rowBytes
                                                dataType:(MPSDataType)dataType;
+ (nonnull MPSMatrixDescriptor*)matrixDescriptorWithRows:(NSUInteger)rows
                                                 columns:(NSUInteger)columns
                                                matrices:(NSUInteger)matrices
                                                rowBytes:(NSUInteger)rowBytes
                                             matrixBytes:(NSUInteger)matrixBytes
                                                dataType:(MPSDataType)dataType;
+ (size_t)rowBytesFromColumns:(NSUInteger)columns dataType:(MPSDataType)dataType;
+ (size_t)rowBytesForColumns:(NSUInteger)columns dataType:(MPSDataType)dataType;
@end

@interface MPSMatrix : NSObject
@property(readonly, nonnull, nonatomic) id<MTLDevice> device;
@property(readonly, nonatomic) NSUInteger rows;
@property(readonly, nonatomic) NSUInteger columns;
@property(readonly, nonatomic) NSUInteger matrices;
@property(readonly, nonatomic) MPSDataType dataType;
@property(readonly, nonatomic) NSUInteger rowBytes;
@property(readonly, nonatomic) NSUInteger matrixBytes;
@property(readonly, nonatomic) NSUInteger offset;
@property(readonly, nonnull, nonatomic) id<MTLBuffer> data;
- (nonnull instancetype)initWithBuffer:(nonnull id<MTLBuffer>)buffer descriptor:(nonnull MPSMatrixDescriptor*)descriptor;
- (nonnull instancetype)initWithBuffer:(nonnull id<MTLBuffer>)buffer
                                offset:(NSUInteger)offset
                            descriptor:(nonnull MPSMatrixDescriptor*)descriptor;
- (nonnull instancetype)initWithDevice:(nonnull id<MTLDevice>)device descriptor:(nonnull MPSMatrixDescriptor*)descriptor;
- (NSUInteger)resourceSize;
@end

@interface MPSVector : NSObject
@end

@interface MPSMatrixBinaryKernel : MPSKernel
@property(readwrite, nonatomic) MTLOrigin primarySourceMatrixOrigin;
@property(readwrite, nonatomic) MTLOrigin secondarySourceMatrixOrigin;
@property(readwrite, nonatomic) MTLOrigin resultMatrixOrigin;
@property(readwrite, nonatomic) NSUInteger batchStart;
@property(readwrite, nonatomic) NSUInteger batchSize;
@end
@interface MPSMatrixUnaryKernel : MPSKernel
@property(readwrite, nonatomic) MTLOrigin sourceMatrixOrigin;
@property(readwrite, nonatomic) MTLOrigin resultMatrixOrigin;
@property(readwrite, nonatomic) NSUInteger batchStart;
@property(readwrite, nonatomic) NSUInteger batchSize;
@end

@interface MPSMatrixMultiplication : MPSKernel
- (nonnull instancetype)initWithDevice:(nonnull id<MTLDevice>)device
                         transposeLeft:(BOOL)transposeLeft
                        transposeRight:(BOOL)transposeRight
                            resultRows:(NSUInteger)resultRows
                         resultColumns:(NSUInteger)resultColumns
                       interiorColumns:(NSUInteger)interiorColumns
                                 alpha:(double)alpha
                                  beta:(double)beta;
- (void)encodeToCommandBuffer:(nonnull id<MTLCommandBuffer>)commandBuffer
                   leftMatrix:(MPSMatrix* _Nonnull)leftMatrix
                  rightMatrix:(MPSMatrix* _Nonnull)rightMatrix
                 resultMatrix:(MPSMatrix* _Nonnull)resultMatrix;
@end

@interface MPSMatrixDecompositionLU : MPSMatrixUnaryKernel
- (nonnull instancetype)initWithDevice:(nonnull id<MTLDevice>)device rows:(NSUInteger)rows columns:(NSUInteger)columns;
- (void)encodeToCommandBuffer:(nonnull id<MTLCommandBuffer>)commandBuffer
                 sourceMatrix:(MPSMatrix* _Nonnull)sourceMatrix
                 resultMatrix:(MPSMatrix* _Nonnull)resultMatrix
                 pivotIndices:(MPSMatrix* _Nonnull)pivotIndices
                         info:(__nullable id<MTLBuffer>)info;
@end

@interface MPSMatrixDecompositionCholesky : MPSMatrixUnaryKernel
@end

@interface MPSMatrixSolveLU : MPSMatrixBinaryKernel
- (nonnull instancetype)initWithDevice:(nonnull id<MTLDevice>)device
                             transpose:(BOOL)transpose
                                 order:(NSUInteger)order
                    numberOfRightHandSides:(NSUInteger)numberOfRightHandSides;
- (void)encodeToCommandBuffer:(nonnull id<MTLCommandBuffer>)commandBuffer
                 sourceMatrix:(MPSMatrix* _Nonnull)sourceMatrix
          rightHandSideMatrix:(MPSMatrix* _Nonnull)rightHandSideMatrix
                 pivotIndices:(MPSMatrix* _Nonnull)pivotIndices
               solutionMatrix:(MPSMatrix* _Nonnull)solutionMatrix;
@end

@interface MPSMatrixSolveTriangular : MPSMatrixBinaryKernel
- (nonnull instancetype)initWithDevice:(nonnull id<MTLDevice>)device
                                 right:(BOOL)right
                                 upper:(BOOL)upper
                             transpose:(BOOL)transpose
                                  unit:(BOOL)unit
                                 order:(NSUInteger)order
                numberOfRightHandSides:(NSUInteger)numberOfRightHandSides
                                 alpha:(double)alpha;
- (void)encodeToCommandBuffer:(nonnull id<MTLCommandBuffer>)commandBuffer
                 sourceMatrix:(MPSMatrix* _Nonnull)sourceMatrix
          rightHandSideMatrix:(MPSMatrix* _Nonnull)rightHandSideMatrix
               solutionMatrix:(MPSMatrix* _Nonnull)solutionMatrix;
@end

@interface MPSImage : NSObject
@end
@interface MPSTemporaryImage : MPSImage
@end
