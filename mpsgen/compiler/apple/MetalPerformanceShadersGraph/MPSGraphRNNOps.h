// mpsgen's stand-in for MPSGraph's recurrent-network descriptors (see Foundation/Foundation.h).
#pragma once
#include <MetalPerformanceShadersGraph/MetalPerformanceShadersGraph.h>

@interface MPSGraphSingleGateRNNDescriptor : NSObject <NSCopying>
@property(readwrite, nonatomic) BOOL reverse, bidirectional, training;
@property(readwrite, nonatomic) MPSGraphRNNActivation activation;
+ (nullable instancetype)descriptor;
@end

@interface MPSGraphLSTMDescriptor : NSObject <NSCopying>
@property(readwrite, nonatomic) BOOL reverse, bidirectional, produceCell, training, forgetGateLast;
@property(readwrite, nonatomic) MPSGraphRNNActivation inputGateActivation, forgetGateActivation, cellGateActivation,
    outputGateActivation, activation;
+ (nullable instancetype)descriptor;
@end

@interface MPSGraphGRUDescriptor : NSObject <NSCopying>
@property(readwrite, nonatomic) BOOL reverse, bidirectional, training, resetGateFirst, resetAfter, flipZ;
@property(readwrite, nonatomic) MPSGraphRNNActivation updateGateActivation, resetGateActivation, outputGateActivation;
+ (nullable instancetype)descriptor;
@end
