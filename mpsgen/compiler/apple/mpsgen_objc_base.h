// mpsgen's stand-in for the Objective-C runtime's NSObject (see Foundation/Foundation.h), shared by the
// Foundation, dispatch and os stubs: their objects are Objective-C objects, as in the SDK.
#pragma once

// The SDK's older spellings of the nullability qualifiers (not __nonnull: glibc's <sys/cdefs.h> has
// a function-like macro of that name).
#define __nullable _Nullable
#define __null_unspecified _Null_unspecified

typedef long NSInteger;
typedef unsigned long NSUInteger;
typedef bool BOOL;
#define YES true
#define NO false
#define TRUE 1 // MacTypes.h
#define FALSE 0
typedef struct _NSZone NSZone;
#define nil nullptr
#define Nil nullptr

// Darwin's additions to <time.h>, which Foundation brings in on a Mac.
#include <stdint.h>
#include <time.h>
extern "C" uint64_t clock_gettime_nsec_np(clockid_t clock_id);
#define CLOCK_UPTIME_RAW 8
#define CLOCK_MONOTONIC_RAW_APPROX 5
@class NSString;

@protocol NSObject
- (BOOL)isEqual:(id)object;
@property(readonly) NSUInteger hash;
@property(readonly) Class superclass;
- (Class)class;
- (instancetype)self;
- (id)performSelector:(SEL)aSelector;
- (id)performSelector:(SEL)aSelector withObject:(id)object;
- (BOOL)isKindOfClass:(Class)aClass;
- (BOOL)isMemberOfClass:(Class)aClass;
- (BOOL)conformsToProtocol:(Protocol*)aProtocol;
- (BOOL)respondsToSelector:(SEL)aSelector;
- (instancetype)retain;
- (oneway void)release;
- (instancetype)autorelease;
- (NSUInteger)retainCount;
@property(readonly, copy) NSString* description;
@property(readonly, copy) NSString* debugDescription;
@end

__attribute__((objc_root_class)) @interface NSObject <NSObject> {
  Class isa;
}
+ (void)load;
+ (void)initialize;
- (instancetype)init;
+ (instancetype)new;
+ (instancetype)alloc;
+ (instancetype)allocWithZone:(NSZone*)zone;
- (void)dealloc;
- (id)copy;
- (id)mutableCopy;
+ (Class)class;
+ (BOOL)instancesRespondToSelector:(SEL)aSelector;
+ (BOOL)isSubclassOfClass:(Class)aClass;
+ (NSString*)description;
@end

